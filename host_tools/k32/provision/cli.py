"""`k32 provision [--port P] --wifi [--ssid S --password W]` and `--token [T]`."""

import click

ASK = object()  # "--token" given without a value: prompt for it


@click.command()
@click.option("--port", help="serial port or pyserial URL (socket://127.0.0.1:<console>) [auto-detect]")
@click.option("--baud", type=click.IntRange(1200, 5_000_000), default=115200, show_default=True)
@click.option("--wifi", is_flag=True, help="store station Wi-Fi credentials on the node")
@click.option("--ssid", help="Wi-Fi network name [prompted]")
@click.option(
    "--password",
    help="Wi-Fi password [prompted, hidden; K32_WIFI_PASSWORD]",
    envvar="K32_WIFI_PASSWORD",
    show_envvar=False,
)
@click.option(
    "--token",
    "token",
    is_flag=False,
    flag_value="",
    default=None,
    help="turn on bearer-token auth with T [prompted, hidden, if no value; K32_TOKEN]",
)
@click.option("--clear-token", is_flag=True, help="turn bearer-token auth off")
@click.option(
    "--timeout",
    type=click.FloatRange(0.1, 300),
    default=10.0,
    show_default=True,
    help="seconds to wait for the node's answer",
)
@click.option(
    "--wait",
    "wait_s",
    type=click.FloatRange(0, 300),
    default=5.0,
    show_default=True,
    help="after --wifi, seconds to show the node's [NET] status lines",
)
def provision(port, baud, wifi, ssid, password, token, clear_token, timeout, wait_s):
    """Send Wi-Fi credentials and/or the API token to a node over its console."""
    import os

    from k32.flash.ports import PortError, auto_detect

    from . import Console, ProvisionError, check_token, check_wifi, set_token, set_wifi

    if token == "":  # bare --token: environment, else prompt
        token = os.environ.get("K32_TOKEN") or click.prompt("Token", hide_input=True, confirmation_prompt=True)
        if token == "":
            raise click.ClickException("token: empty; use --clear-token to turn auth off")
    if clear_token and token is not None:
        raise click.UsageError("--token and --clear-token exclude each other")
    if clear_token:
        token = ""
    if not wifi and token is None:
        raise click.UsageError("nothing to do: give --wifi and/or --token / --clear-token")
    if (ssid or password) and not wifi:
        raise click.UsageError("--ssid/--password need --wifi")
    try:
        if token is not None:
            check_token(token)
        if wifi:
            ssid = ssid if ssid is not None else click.prompt("SSID")
            if password is None:
                password = click.prompt(
                    "Password (empty for an open network)",
                    hide_input=True,
                    confirmation_prompt=True,
                    default="",
                    show_default=False,
                )
            check_wifi(ssid, password)
        port = port or auto_detect()
        with Console(port, baud) as con:
            if wifi:
                set_wifi(con, ssid, password, timeout)
                click.echo(f"Wi-Fi credentials for {ssid!r} stored on the node at {port}")
                for line in con.follow(wait_s, "[NET]"):
                    click.echo(line)
            if token is not None:
                st = set_token(con, token, timeout)
                click.echo(f"bearer-token auth {'on' if token else 'off'} on node {st.get('name', '?')} at {port}")
    except (ProvisionError, PortError) as e:
        raise click.ClickException(str(e)) from None
