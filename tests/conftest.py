import pytest


def pytest_addoption(parser):
    parser.addoption(
        "--update-golden",
        action="store_true",
        default=False,
        help="rewrite the expected outputs of golden tests from the current behaviour",
    )


@pytest.fixture
def update_golden(request):
    return request.config.getoption("--update-golden")
