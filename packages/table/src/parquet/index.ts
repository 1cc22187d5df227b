// '@tributary/table/parquet': the Parquet data file reader, for sources that read Parquet files
// into column batches (the table API itself is '@tributary/table').
export { ParquetDataFileReader, type ByteSource } from './parquet-reader.ts';
