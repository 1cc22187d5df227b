/** The files source kind: NDJSON, CSV or Parquet files on disk or in S3, under the operator's roots. */
import { sourceKind } from '../source.ts';
import { FilesSource } from './source.ts';
import { FilesSourceSpec } from './spec.ts';

export const filesSource = sourceKind({
  kind: 'files',
  spec: FilesSourceSpec,
  summary: () => ({}),
  create: (spec, context) => new FilesSource(spec, context),
});

export { FilesSource, loadedFileKey } from './source.ts';
export { FilesSourceSpec, filesShardId, planFileShards, splitObjectUri } from './spec.ts';
