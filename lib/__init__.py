"""The course library. See the chapter named in each module docstring."""
