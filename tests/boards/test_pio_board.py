"""host_tools/k32/boards/pio_board.py applies a profile to a PlatformIO build. PlatformIO
cannot install its espressif32 platform here (no internet), so the script runs against a
recording stand-in for the SCons environment it is given."""

import runpy

import pytest

from k32 import REPO_ROOT
from k32.boards import load_board
from k32.boards.partition_table import to_csv

SCRIPT = REPO_ROOT / "host_tools" / "k32" / "boards" / "pio_board.py"


class RecordingEnv:
    def __init__(self, build_dir, options):
        self.build_dir, self.options = str(build_dir), options
        self.board, self.appended, self.exit_code = {}, {}, None

    def subst(self, text):
        return {"$PROJECT_DIR": str(REPO_ROOT / "firmware"), "$BUILD_DIR": self.build_dir}[text]

    def GetProjectOption(self, name, default=None):
        return self.options.get(name, default)

    def BoardConfig(self):
        outer = self

        class Cfg:
            def update(self, key, value):
                outer.board[key] = value

        return Cfg()

    def Append(self, **kw):
        for k, v in kw.items():
            self.appended.setdefault(k, []).extend(v)

    def Exit(self, code):
        self.exit_code = code
        raise SystemExit(code)


def run_script(env):
    runpy.run_path(str(SCRIPT), init_globals={"Import": lambda *_: None, "env": env})


@pytest.mark.parametrize("name,size", [("s3", None), ("s3", "16MB"), ("esp32", None), ("c3", None)])
def test_profile_applied(tmp_path, name, size):
    opts = {"custom_k32_board": name}
    if size:
        opts["custom_k32_flash_size"] = size
    env = RecordingEnv(tmp_path, opts)
    run_script(env)
    board = load_board(name, size)
    args = env.board["build.cmake_extra_args"].split()
    assert f"-DK32_BOARD={name}" in args
    assert (f"-DK32_FLASH_SIZE={size}" in args) == bool(size)
    assert env.board["upload.flash_size"] == board.flash_size
    assert env.board["build.flash_mode"] == board.flash_mode
    assert env.board["build.f_flash"] == f"{int(board.flash_freq[:-1]) * 1000000}L"
    assert env.board["build.partitions"] == str(tmp_path / "k32" / "partitions.csv")


@pytest.mark.parametrize("name,size", [("s3", None), ("s3", "16MB"), ("esp32", None), ("c3", None)])
def test_board_sdkconfig_lines(tmp_path, name, size):
    """What ESP-IDF's configure reads after sdkconfig.defaults (k32.boards.sdkconfig)."""
    from k32.boards import sdkconfig

    assert sdkconfig.main(["--board", name, "--out-dir", str(tmp_path)] + (["--flash-size", size] if size else [])) == 0
    board = load_board(name, size)
    assert (tmp_path / "partitions.csv").read_text() == to_csv(board.partitions)
    sdk = (tmp_path / "sdkconfig.board").read_text()
    assert f'CONFIG_IDF_TARGET="{board.chip}"' in sdk
    assert f"CONFIG_ESPTOOLPY_FLASHSIZE_{board.flash_size}=y" in sdk
    assert ("CONFIG_SPIRAM=y" in sdk) == board.psram
    assert ("CONFIG_FREERTOS_UNICORE=y" in sdk) == (board.cores == 1)
    assert f"CONFIG_ESP_MAIN_TASK_STACK_SIZE={board.budgets['main_stack']['bytes']}" in sdk
    # the firmware component's build reads where the interpreter's dispatch loop goes
    assert (tmp_path / "board.cmake").read_text() == f'set(K32_WASM_LOOP "{board.wasm_loop}")\n'
    assert board.wasm_loop == ("flash" if name == "esp32" else "iram")


def test_sdkconfig_refuses_the_simulator(tmp_path, capsys):
    from k32.boards import sdkconfig

    assert sdkconfig.main(["--board", "sim", "--out-dir", str(tmp_path)]) == 2
    assert "not a chip" in capsys.readouterr().err


def test_unknown_profile_stops_the_build(tmp_path, capsys):
    env = RecordingEnv(tmp_path, {"custom_k32_board": "s9"})
    with pytest.raises(SystemExit):
        run_script(env)
    assert env.exit_code == 2
    assert "unknown board 's9'" in capsys.readouterr().err


def test_platformio_ini_has_one_env_per_flashable_board():
    import configparser

    ini = configparser.ConfigParser()
    ini.read(REPO_ROOT / "firmware" / "platformio.ini")
    envs = {s.split(":", 1)[1]: ini[s] for s in ini.sections() if s.startswith("env:")}
    from k32.boards import available

    flashable = {b for b in available() if load_board(b).flashable}
    assert set(envs) == flashable
    for name, sect in envs.items():
        assert sect["custom_k32_board"] == name
        assert sect["board"]  # PlatformIO's board id lives only in platformio.ini
    assert ini["env"]["framework"] == "espidf"
