"""One error type for every renderer, so the CLI prints one line and exits non-zero."""


class RenderError(Exception):
    """A rejected input or render. `code` is the stable machine name (e.g. the release
    renderer's `unpinned_template`); `str()` is the one-line human message naming file/field/rule."""

    def __init__(self, code: str, message: str):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
