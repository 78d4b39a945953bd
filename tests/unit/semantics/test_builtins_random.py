"""uuid(), random() and random_int(): drawn from the run's random source, which a caller seeds
as it sets the clock; never folded, each call drawing anew; examples of such tools seeded."""

import random
import threading
import uuid
from decimal import Decimal

import pytest
from builtin_calls import code

import toolkiln
from toolkiln.ast.visitor import walk
from toolkiln.diagnostics import codes
from toolkiln.errors import UsageError
from toolkiln.optimize import optimize
from toolkiln.registry.examples import examples_problems, run_examples

DICE = """tool dice(sides: integer)
description "Throws"
{
  throw = random_int(1, sides)
  return {"id": uuid(), "share": random(), "throw": throw, "same": [throw, throw],
          "more": [random_int(1, sides) for _ in range(20)]}
}
"""


def test_a_seeded_source_repeats_a_run_and_another_seed_does_not():
    dice = toolkiln.compile(DICE)
    first, again = dice.run({"sides": 6}, random=7), dice.run({"sides": 6}, random=random.Random(7))
    assert first == again
    assert dice.run({"sides": 6}, random=8) != first
    assert uuid.UUID(first["id"]).version == 4 and first["id"] == first["id"].lower()
    assert Decimal(0) <= first["share"] < 1 and -first["share"].as_tuple().exponent <= 16
    assert set(first["more"]) <= {Decimal(n) for n in range(1, 7)} and len(set(first["more"])) > 1
    assert first["same"] == [first["throw"], first["throw"]]  # a name bound to a draw keeps it


def test_without_a_source_runs_draw_from_the_system_and_differ():
    dice = toolkiln.compile(DICE)
    assert len({dice.run({"sides": 6})["id"] for _ in range(5)}) == 5


def test_the_draws_come_from_the_source_given():
    class Counting(random.Random):
        draws = 0

        def getrandbits(self, k: int) -> int:
            Counting.draws += 1
            return super().getrandbits(k)

    value = toolkiln.compile("return [uuid(), random_int(0, 100), random()]").run(random=Counting(1))
    assert Counting.draws >= 3 and len(value) == 3


def test_the_optimizer_never_folds_a_draw():
    tool = toolkiln.compile("return [uuid(), random(), random_int(3, 3)]")
    calls = {getattr(node, "function", None) for node in walk(optimize(tool.program))}
    assert {"uuid", "random", "random_int"} <= calls
    assert len({tool.run()[0] for _ in range(3)}) == 3


@pytest.mark.parametrize(
    "expression",
    ["random_int(2, 1)", "random_int(1.5, 3)", "random_int(1, 2.5)"],
)
def test_bad_bounds_are_coded(expression):
    assert code(expression) == codes.INVALID_OPERATION.code


def test_random_int_includes_both_ends():
    values = toolkiln.compile("return [random_int(-1, 1) for _ in range(200)]").run(random=3)
    assert set(values) == {Decimal(-1), Decimal(0), Decimal(1)}
    assert toolkiln.compile("return random_int(5, 5)").run() == 5


def test_a_bad_source_is_a_usage_error():
    with pytest.raises(UsageError):
        toolkiln.compile("return random()").run(random="seven")


def test_run_many_draws_one_sequence_and_refuses_workers():
    tool = toolkiln.compile("return uuid()")
    rows = tool.run_many([{}, {}, {}], random=5)
    assert rows == tool.run_many([{}, {}, {}], random=5) and len(set(rows)) == 3
    with pytest.raises(UsageError):
        tool.run_many([{}, {}], random=5, workers=2)


def test_threads_never_share_a_seeded_source():
    tool = toolkiln.compile("return [random_int(0, 1000000) for _ in range(50)]")
    expected = tool.run(random=11)
    found: list[object] = []

    def seeded() -> None:
        found.append(tool.run(random=11))

    def unseeded() -> None:
        for _ in range(20):
            tool.run()

    threads = [threading.Thread(target=seeded), threading.Thread(target=unseeded), threading.Thread(target=seeded)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found == [expected, expected]


def test_an_example_of_a_drawing_tool_says_its_seed():
    dice = toolkiln.compile(DICE)
    unseeded = run_examples(dice, [{"args": {"sides": 6}, "expect": 1}], tables={}, limits=None)
    assert [d.code for d in unseeded] == [codes.INVALID_EXAMPLE.code] and "seed" in unseeded[0].hint
    result = toolkiln.to_jsonable(dice.run({"sides": 6}, random=3))
    assert run_examples(dice, [{"args": {"sides": 6}, "seed": 3, "expect": result}], tables={}, limits=None) == []
    wrong = run_examples(dice, [{"args": {"sides": 6}, "seed": 4, "expect": result}], tables={}, limits=None)
    assert [d.code for d in wrong] == [codes.EXAMPLE_FAILED.code]
    bad = examples_problems([{"args": {}, "seed": "7", "expect": 1}])
    assert [d.code for d in bad] == [codes.INVALID_EXAMPLE.code] and bad[0].span.path == "examples[0].seed"
