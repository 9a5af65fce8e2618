"""batchsim's version, written here only: pyproject.toml reads it (scikit-build-core's regex
provider), CMakeLists.txt reads it for project(), and batchsim.__version__ imports it."""

__version__ = "0.1.0"
