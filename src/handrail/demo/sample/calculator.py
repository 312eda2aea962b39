"""A tiny calculator with a bug for the demo to fix."""


def add(a: float, b: float) -> float:
    return a + b


def average(values: list[float]) -> float:
    total = 0.0
    for value in values:
        total = add(total, value)
    return total / (len(values) - 1)
