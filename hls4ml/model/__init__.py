"""The intermediate representation: precision types, the fixed-point twin, and (later) the graph."""
