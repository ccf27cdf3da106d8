import pytest

from k32.wasm.tool import wasm_tool


@pytest.fixture(scope="session")
def tool():
    """The k32-wasm binary (built on first use)."""
    return wasm_tool()
