"""What a run takes from and gives to the outside of the interpreter: lookup tables loaded
from files (`tables`: JSON, CSV) and batches of rows run in worker processes (`pool`)."""
