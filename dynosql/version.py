"""dynosql's version, in a module of its own: the parse cache keys on it and the front doors
print it, without importing the package's lazy names (dynosql/__init__)."""

__version__ = "0.1.0"
