"""Pod images: images/<name>/*.c compiled to build/images/<name>.wasm (+ sha256), and the
generated C++ table that embeds them into the firmware as wasm://embedded/<name>."""
