"""`k32 kubeconfig --port PORT | --ip IP [--context NAME] [--token T]`."""

from pathlib import Path

import click


@click.command()
@click.option("--port", help="the control plane's console: serial port or pyserial URL (socket://IP:PORT)")
@click.option("--ip", help="the API server's address, when there is no console (trust on first use)")
@click.option(
    "--api-port", type=click.IntRange(1, 65535), default=6443, show_default=True, help="with --ip: the API port"
)
@click.option("--context", default="kube32-board", show_default=True, help="kubeconfig context name")
@click.option(
    "--kubeconfig",
    "path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="file to merge into [kubectl's: $KUBECONFIG or ~/.kube/config]",
)
@click.option(
    "--token",
    envvar="K32_TOKEN",
    show_envvar=False,
    help="the node's API token [K32_TOKEN; prompted when the node has one]",
)
def kubeconfig(port, ip, api_port, context, path, token):
    """Write a kubeconfig context for a board's API server (certificate pinned, token added)."""
    import sys

    from . import KubeconfigError, check, fingerprint, from_console, from_network, write

    if bool(port) == bool(ip):
        raise click.UsageError("give exactly one of --port (console) or --ip (network)")
    try:
        target = from_console(port) if port else from_network(ip, api_port)
        if not port:
            click.echo(f"certificate of {ip}:{api_port}, SHA-256 {fingerprint(target.pem)}")
            click.echo("(taken from the network: compare it with the console's K32_CMD:APICERT if in doubt)")
        if target.has_token and not token:
            if not sys.stdin.isatty():
                raise KubeconfigError("the node has an API token: give it with --token or K32_TOKEN")
            token = click.prompt("Token", hide_input=True)
        nodes = check(target, token)
        written = write(target, token, context, path)
    except KubeconfigError as e:
        raise click.ClickException(str(e))
    names = ", ".join(i.get("metadata", {}).get("name", "?") for i in nodes.get("items", [])) or "none yet"
    click.echo(f"context {context} -> https://{target.ip}:{target.api_port} in {written} (nodes: {names})")
    click.echo(f"kubectl --context {context} get nodes")
