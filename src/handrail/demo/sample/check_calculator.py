"""Checks for calculator.py; run with `python3 check_calculator.py`."""

from calculator import average

assert average([2, 4, 6]) == 4, f"average([2, 4, 6]) gave {average([2, 4, 6])}"
print("all checks passed")
