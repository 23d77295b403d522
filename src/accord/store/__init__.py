"""Where a run lives: a local path or a location in an object store.

`is_location` tells a store location (``s3://``, ``gs://``, ``az://``, ``file://``) from a
path; `RunStore` lists, reads, creates-if-absent, puts and deletes the objects of one run;
`Lease` is the expiring lock of a run kept in a store, and `Claims` lets several drivers
share one run; `StoredTraces` lets the one trace reader read a run's traces in place, and
`local_view` gives commands that still read folders a local copy of a run.
"""

from accord.store.claims import Claims
from accord.store.lease import Lease, LeaseHeldError, holder_record, lease_ttl
from accord.store.location import check_location, is_location
from accord.store.mirror import local_view
from accord.store.objects import (
    Entry,
    RunStore,
    StoredTraces,
    StoreError,
    is_safe_name,
    open_store,
)

__all__ = [
    "Claims",
    "Entry",
    "Lease",
    "LeaseHeldError",
    "RunStore",
    "StoreError",
    "StoredTraces",
    "check_location",
    "holder_record",
    "is_location",
    "is_safe_name",
    "lease_ttl",
    "local_view",
    "open_store",
]
