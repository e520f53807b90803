"""Reading nccl-tests tables, real logs and `echo-des nccl-tests` output alike."""
import re


def times(text):
    """Out-of-place time (us) per size (bytes) of an nccl-tests table: data rows start with the
    size; '#' lines are headers; an MPI prefix like '[1,0]<stdout>:' is ignored."""
    out = {}
    for line in text.splitlines():
        line = re.sub(r'^\[[^\]]*\]<stdout>:', '', line).strip()
        if not line or line.startswith('#'):
            continue
        f = line.split()
        if len(f) < 6 or not f[0].isdigit():
            continue
        i = 5 if len(f) >= 13 else 4  # nccl-tests >= 2.13 prints a root column
        out[int(f[0])] = float(f[i])
    return out
