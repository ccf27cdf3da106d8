"""Old name of k32.data_bundle, kept so imports written before the rename still work."""
from k32.data_bundle import *  # noqa: F403
from k32.data_bundle import artifacts, builder, littlefs_image, manifest  # noqa: F401
