"""lowercheck's xDSL dialects, one per file: `kernel` (entries, parameters, launches), `access`
(one op per memory access, over tagged index variables) and `tt` (the Triton TTIR ops we read)."""
