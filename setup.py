"""The compiled move generator and lexicon builder (engine._kernel), built by `pip install .`.

Everything else about the package is in pyproject.toml. The extension is optional: without a
C compiler (or Python's headers) the build warns and goes on, and the engine uses its
pure-Python generator instead (engine.kernel says which one runs).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "engine._kernel",
            sources=["src/engine/_kernel.c", "src/engine/_dawg.c"],
            # What the two files share; listed so that the sdist ships it and a change to it
            # rebuilds both.
            depends=["src/engine/_dawg.h"],
            extra_compile_args=["-O2", "-std=c99"],
            optional=True,
        )
    ]
)
