"""Did-you-mean: the rules that name the likely fix for a statement that runs but probably does
not say what its author meant, and the few bounded reads that feed them."""
