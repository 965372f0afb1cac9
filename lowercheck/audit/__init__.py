"""lowercheck audit: review a kernel task (tolerance, benchmark fairness, scoping, validity)."""
