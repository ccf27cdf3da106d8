"""Old name of k32.testing.esprom (the ROM double), kept so `python -m k32.esprom` and imports
written before the move still work."""
from k32.testing.esprom import rom, server, slip  # noqa: F401
