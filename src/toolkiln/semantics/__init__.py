"""The meaning of the language, shared by the checker, the optimizer and the interpreter:
number handling, value rendering and the built-in functions. One definition, so a constant
folded at compile time always equals what the interpreter computes."""
