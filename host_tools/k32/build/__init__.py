"""Building the firmware's host binary and fetching the tools the tests drive."""
