"""The golden-vector generator behind scripts/make_fixed_golden.py.

exact.py states the clean fixed-point rules in exact arithmetic, strings.py the to_string formats,
quirks.py the named vendor deviations; casts.py, operators.py and conversions.py build the cases
of each file and judge the vendor's output row by row (common.py: what they share); driver.py and
driver.cpp.j2 compile and run the C++ drivers against the vendor headers; crosscheck.py judges
another golden set with the same rules.
"""
