"""The `k32` command. Each sub-command lives in its own module and is imported
only when used, so one area's missing optional dependency never breaks another."""

import importlib

import click

# name -> "module:attribute"; every area registers its command group here.
COMMANDS = {
    "sim": "k32.sim.cli:sim",
    "build": "k32.build.cli:build",
    "bench": "k32.bench.cli:bench",
    "catalog": "k32.render.catalog.cli:catalog",
    "release": "k32.render.release.cli:release",
    "apply": "k32.render.apply.cli:apply",
    "bundle": "k32.data_bundle.cli:bundle",
    "wasm": "k32.wasm.cli:wasm",
    "fuzz": "k32.fuzz.cli:fuzz",
    "flash": "k32.flash.cli:flash",
    "provision": "k32.provision.cli:provision",
    "kubeconfig": "k32.kubeconfig.cli:kubeconfig",
    "image": "k32.images.image_cli:image",
    "apigen": "k32.apigen.cli:apigen",
    "abi": "k32.abi.cli:abi",
    "check": "k32.mcu.cli:check_group",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup)
@click.version_option(package_name="k32")
def main():
    """Kube32: Kubernetes for ESP32 boards, and its host simulator."""


if __name__ == "__main__":
    main()
