"""actiondex's core: the action model, formats, store, index and search.

This package imports neither Scrapy nor FastAPI; crawler/ and api/ are adapters around it.
"""

import os

# One BLAS thread a process, set before numpy loads its OpenBLAS (issue 24): the vector
# index's scan (registry.index.nearest, a (rows x 64) matrix times a vector) took 10-15 ms at
# 10k rows with OpenBLAS's default of a thread per core on a busy 2-core machine, 0.2 ms on
# one thread; a server runs its searches in threads of its own already. An operator's
# OPENBLAS_NUM_THREADS wins. (e5's model runs in its own C engine, not numpy's BLAS.)
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
