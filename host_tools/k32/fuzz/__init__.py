"""`k32 fuzz`: builds the libFuzzer targets of firmware/fuzz/ and runs them."""
