"""The package README's first example (which is also the crate docs' example) runs as shown."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs():
    text = README.read_text()
    example = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    exec(compile(example, str(README), "exec"), {})
