"""Old name of k32.kubeconfig.files, kept so imports written before the move still work."""
from k32.kubeconfig.files import *  # noqa: F403
from k32.kubeconfig.files import DEFAULT_CONTEXT as CONTEXT  # noqa: F401
from k32.kubeconfig.files import KubeconfigError, default_path, load, merge, write_context  # noqa: F401
