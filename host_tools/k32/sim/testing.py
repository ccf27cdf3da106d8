"""Old name of k32.testing.clusters, kept so imports written before the move still work."""
from k32.testing.clusters import *  # noqa: F403
from k32.testing.clusters import KUBECONFIG_NAME, k8s_api_client, make_test_cluster, make_test_pki  # noqa: F401
