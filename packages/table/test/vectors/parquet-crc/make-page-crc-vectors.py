# Writes the page-checksum vectors: python make-page-crc-vectors.py (pyarrow 19.0.1, the venv infra/up.sh installs in .cache/venv).
import io
import pyarrow as pa
import pyarrow.parquet as pq

t = pa.table({"id": pa.array(range(300), pa.int32()), "s": pa.array([f"s{i % 7}" for i in range(300)])})
for name, kw in [("v1-none", dict(compression="none")), ("v2-snappy", dict(compression="snappy", data_page_version="2.0"))]:
    b = io.BytesIO()
    pq.write_table(t, b, write_page_checksum=True, data_page_size=400, **kw)
    open(f"pyarrow-{pa.__version__}-page-crc-{name}.parquet", "wb").write(b.getvalue())
