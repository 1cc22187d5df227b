export type {
  AtomicTypeRoot,
  DataField,
  DataType,
  InternalRow,
  InternalValue,
  RowType,
  Timestamp,
} from './spec/types.ts';
export { MAX_LENGTH } from './spec/types.ts';
