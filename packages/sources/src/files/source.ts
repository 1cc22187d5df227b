/**
 * Files on disk or in S3 (NDJSON, CSV or Parquet), one or more files per shard. A text file is read
 * in ranges of CHUNK_BYTES through the ObjectStore, so memory stays bounded by one chunk and one
 * batch whatever the file's size; a Parquet file (parquet.ts) by one row group of the projected
 * columns. A Parquet shard's position is `{file, row}` (the file's index in the shard, the next row
 * in it); a text shard's is the count of rows read.
 *
 * Every read of a file is pinned to the version (size, ETag) the plan listed and the shard spec
 * carries (pinned-file.ts): a file changed since fails the shard with SOURCE_FILE_CHANGED, so the
 * read position, those versions, names exactly what the rows were read from.
 *
 * Rows come out in the table's column order (`columns` is given by the caller, the table's names):
 * NDJSON objects are projected by their own keys (a missing key is null); CSV files carry a header
 * row; names match as every format's do (column-names.ts), a file column that is no table column
 * is refused unless the spec says `unknownColumns: "ignore"`, and every CSV value is a string (the converter parses it; an
 * empty field is null). A CSV batch keeps its fields column by column (csv-cells.ts) and the
 * converter takes the table's columns from those; its rows are built only when read. A batch
 * holds one file's rows and names the file and its first row there, so a value that does not fit
 * is named by file and row. Text is read strictly (text-records.ts): a malformed or possibly
 * truncated file fails the shard with SOURCE_FILE_MALFORMED rather than yield a row it is not sure of.
 */
import { errorFrom } from '@tributary/protocol';
import { tableErrors } from '@tributary/table';
import { checkSourceUri, s3Credentials, type SourceAccess } from '../access.ts';
import { sourceErrors } from '../errors.ts';
import type { FileReadPosition, ShardReadPosition } from '@tributary/protocol';
import type { OpenStore, PlanContext, PlannedSourceShard, Source, SourceBatch, SourceColumn, SourceContext, SourcePosition, SourceRow, SourceSchema, SourceValue } from '../source.ts';
import { matchColumn, matchColumns, noSharedColumn, unknownColumn } from './column-names.ts';
import { FILES_CHECKED, checkFileColumns, fileColumns, fileSchema } from './inspect.ts';
import { CsvCellsBuilder } from './csv-cells.ts';
import { openParquetFile } from './parquet.ts';
import { pinnedFile, type PinnedFile } from './pinned-file.ts';
import { FilesShardSpec, FilesSourceSpec, planFileShards, splitObjectUri } from './spec.ts';
import { csvRecords, ndjsonLines, parseJsonLine, rawJsonText, utf8Text, type TextOptions } from './text-records.ts';

const CHUNK_BYTES = 1 << 20;
const BATCH_ROWS = 10_000;

export class FilesSource implements Source {
  readonly kind = 'files';
  readonly #spec: FilesSourceSpec;
  readonly #openStore: OpenStore;
  readonly #columns: readonly string[];
  readonly #access: SourceAccess;

  /** Every file is read through the context's stores, and only under its source roots. */
  constructor(spec: unknown, context: SourceContext) {
    const parsed = FilesSourceSpec.safeParse(spec);
    if (!parsed.success) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `files source: ${parsed.error.message}`);
    this.#spec = parsed.data;
    this.#openStore = filesStore(parsed.data, context);
    this.#columns = context.columns;
    this.#access = context.access;
  }

  columns(): Promise<readonly SourceColumn[]> {
    return Promise.resolve(this.#columns.map((name) => ({ name, sourceType: `${this.#spec.format} field` })));
  }

  /** An unknown S3 connection, or a URI that is not a file: or s3: URI under the roots (before anything is read). */
  async check(): Promise<void> {
    if (this.#spec.connection !== undefined) s3Credentials(this.#spec.connection, this.#access);
    for (const [index, uri] of this.#spec.uris.entries()) {
      // Another scheme is malformed input (400), whatever the roots; a file: or s3: URI is judged by them (403).
      if (!/^(file|s3a?):/i.test(uri)) throw errorFrom(tableErrors, 'STORAGE_URI_INVALID', `source URI ${index} is not a file: or s3: URI`, { index });
      await checkSourceUri(uri, index, this.#access);
    }
  }

  /**
   * Lists the files once; stops listing as soon as they make more shards than allowed. Every URI is
   * checked against the roots before anything is read, so a refusal says nothing about what exists;
   * each file found is checked again (a listed name or a symlink may lead out). With
   * `newFilesOnly`, the files a committed snapshot of the table lists (same URI and ETag) are left
   * out. The first FILES_CHECKED files' columns are checked against the table (inspect.ts).
   */
  async plan(ctx: PlanContext): Promise<readonly PlannedSourceShard[]> {
    let files = await this.#list(ctx.maxShards * this.#spec.filesPerShard, () => ctx.tooManyShards(`more than ${ctx.maxShards}`), (uri) => ctx.refuse(`no source file matches ${uri}`, { uri }));
    if (this.#spec.newFilesOnly === true) {
      const loaded = await ctx.history.loadedFiles();
      files = files.filter((f) => !loaded.has(loadedFileKey(f.uri, f.etag)));
      if (files.length === 0) throw ctx.nothingToLoad('every file the source lists is already loaded (newFilesOnly)');
    }
    for (const file of files.slice(0, FILES_CHECKED)) {
      const { root, key } = splitObjectUri(file.uri);
      const columns = await fileColumns(this.#openStore(root), key, file.uri, this.#spec.format);
      // An empty file (no header, no object) says nothing of its columns and loads no row.
      if (columns !== undefined) checkFileColumns(columns, ctx.target, file.uri, this.#spec.format, this.#spec.unknownColumns, ctx.mismatch);
    }
    // Each shard carries the versions listed here: its worker reads those or fails (pinned-file.ts).
    return planFileShards(files, this.#spec.filesPerShard);
  }

  /** The first non-empty file's columns as table columns (no primary key); the size is every listed file's. */
  async schema(): Promise<SourceSchema> {
    const files = await this.#list(Number.MAX_SAFE_INTEGER, () => new Error('unreachable'), (uri) => errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `no source file matches ${uri}`, { uri }));
    if (files.length === 0) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', 'the source lists no file');
    for (const file of files.slice(0, FILES_CHECKED)) {
      const { root, key } = splitObjectUri(file.uri);
      const columns = await fileColumns(this.#openStore(root), key, file.uri, this.#spec.format);
      if (columns !== undefined) return fileSchema(columns, files.reduce((n, f) => n + f.size, 0), file.uri);
    }
    throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `the source's first ${Math.min(files.length, FILES_CHECKED)} files are empty: no record to take the columns from`);
  }

  /** Every file the URIs name, in order, with its size and ETag; `tooMany` past `maxFiles`, `none` for a URI that matches nothing. */
  async #list(maxFiles: number, tooMany: () => Error, none: (uri: string) => Error): Promise<FileReadPosition[]> {
    await this.check();
    const files: FileReadPosition[] = [];
    for (const [index, uri] of this.#spec.uris.entries()) {
      const { root, key, prefix } = splitObjectUri(uri);
      const store = this.#openStore(root);
      const found: FileReadPosition[] = [];
      if (prefix) {
        for await (const o of store.list(key)) {
          found.push({ uri: `${root}/${o.key}`, size: o.size, etag: o.etag ?? '' });
          if (files.length + found.length > maxFiles) throw tooMany();
        }
      } else {
        const meta = await store.stat(key);
        if (meta !== null) found.push({ uri, size: meta.size, etag: meta.etag ?? '' });
      }
      if (found.length === 0) throw none(uri);
      for (const file of found) await checkSourceUri(file.uri, index, this.#access);
      files.push(...found);
      if (files.length > maxFiles) throw tooMany();
    }
    return files;
  }

  /**
   * The shard's read position: each file's size and ETag as the plan listed them, which every read
   * of the file is pinned to (pinned-file.ts), so the position recorded is the version the rows
   * were read under. A shard planned before plans carried versions: as the worker finds them first.
   */
  async #readPosition(files: readonly string[], versions: FilesShardSpec['versions']): Promise<ShardReadPosition> {
    if (versions !== undefined && versions.length === files.length) return { files: files.map((uri, i) => ({ uri, ...(versions[i] ?? { size: 0, etag: '' }) })) };
    const read: FileReadPosition[] = [];
    for (const uri of files) {
      const { root, key } = splitObjectUri(uri);
      const meta = await this.#openStore(root).stat(key);
      if (meta === null) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `source file ${uri} does not exist`, { uri });
      read.push({ uri, size: meta.size, etag: meta.etag ?? '' });
    }
    return { files: read };
  }

  /** Every file of the shard is checked against the roots (and realpath) before any is opened. */
  async *open(shard: PlannedSourceShard, from?: SourcePosition): AsyncIterable<SourceBatch> {
    const files = shard.spec.files;
    if (!Array.isArray(files)) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `files shard ${shard.id} lists no files`, { shard: shard.id });
    for (const [index, uri] of files.entries()) await checkSourceUri(String(uri), index, this.#access);
    const parsed = FilesShardSpec.safeParse(shard.spec);
    if (!parsed.success) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `files shard ${shard.id}: no file list`, { shard: shard.id });
    const readPosition = await this.#readPosition(parsed.data.files, parsed.data.versions);
    let given = false;
    for await (const batch of this.#batches(readPosition.files ?? [], from, readPosition)) {
      given = true;
      yield batch;
    }
    if (!given) yield { rows: [], firstRowPosition: 0, end: from ?? 0, readPosition }; // files without rows still say what was read
  }

  /** The shard's batches, each with the shard's read position. */
  async *#batches(files: readonly FileReadPosition[], from: SourcePosition | undefined, readPosition: ShardReadPosition): AsyncIterable<SourceBatch> {
    if (this.#spec.format === 'parquet') {
      yield* this.#parquet(files, from, readPosition);
      return;
    }
    if (this.#spec.format === 'csv') {
      yield* this.#csv(files, from, readPosition);
      return;
    }
    // NDJSON: batches of rows, never two files' (a refusal names the file and its row).
    const skip = typeof from === 'number' ? from : 0;
    let position = 0;
    for (const file of files) {
      const { uri } = file;
      let rows: SourceRow[] = [];
      let fileRow = 0; // the file's rows (its JSON lines) before the batch's first
      const batch = (): SourceBatch => ({ rows, firstRowPosition: position - rows.length, end: position, file: { uri, firstRow: fileRow - rows.length }, readPosition });
      for await (const row of this.#ndjsonRows(file)) {
        fileRow++;
        if (position++ < skip) continue;
        rows.push(row);
        if (rows.length === BATCH_ROWS) {
          yield batch();
          rows = [];
        }
      }
      if (rows.length > 0) yield batch();
    }
  }

  /** Row group by row group; resumes at `{file, row}`. Batches never span two files. */
  async *#parquet(files: readonly FileReadPosition[], from: SourcePosition | undefined, readPosition: ShardReadPosition): AsyncIterable<SourceBatch> {
    const start = parquetPosition(from);
    let position = 0;
    for (const [index, listed] of files.entries()) {
      const { uri } = listed;
      if (index < start.file) {
        position += (await this.#openParquet(listed)).rowCount; // keeps shard positions stable across a resume
        continue;
      }
      const file = await this.#openParquet(listed);
      const fromRow = index === start.file ? start.row : 0;
      position += Math.min(fromRow, file.rowCount);
      for await (const { firstRow, cells } of file.batches(fromRow, BATCH_ROWS)) {
        // The converter writes the cells into the table's columns (parquet-cells.ts); rows are decoded
        // only when read (a getter: the batch is never copied by spreading, which would read it).
        let rows: SourceRow[] | undefined;
        yield {
          get rows() {
            return (rows ??= cells.rows());
          },
          firstRowPosition: position,
          end: { file: index, row: firstRow + cells.length },
          file: { uri, firstRow },
          readPosition,
          columnar: cells,
        };
        position += cells.length;
      }
    }
  }

  /**
   * The CSV files' records, their fields collected into batches of BATCH_ROWS rows (csv-cells.ts)
   * that the converter writes into the table's columns; rows are built only when read. A batch
   * never holds two files' records (a refusal names the file and its row, the header not counted).
   */
  async *#csv(files: readonly FileReadPosition[], from: SourcePosition | undefined, readPosition: ShardReadPosition): AsyncIterable<SourceBatch> {
    const skip = typeof from === 'number' ? from : 0;
    const options: TextOptions = { allowUnterminatedLastLine: this.#spec.allowUnterminatedLastLine };
    const builder = new CsvCellsBuilder(this.#columns.length);
    let position = 0;
    for (const file of files) {
      const { uri } = file;
      let fileRow = 0; // the file's records after its header, before the batch's first
      const batch = (): SourceBatch => {
        const cells = builder.take();
        let rows: SourceRow[] | undefined;
        return {
          get rows() {
            return (rows ??= cells.rows());
          },
          firstRowPosition: position - cells.length,
          end: position,
          file: { uri, firstRow: fileRow - cells.length },
          readPosition,
          columnar: cells,
        };
      };
      let indexes: number[] | undefined; // per table column, its field in the header (-1: none, null)
      for await (const fields of csvRecords(utf8Text(chunks(this.#pinned(file))), uri, options)) {
        if (indexes === undefined) {
          // The header's names, matched as every format's are (column-names.ts).
          indexes = matchColumns(this.#columns, fields, uri, 'csv', { unknownColumns: this.#spec.unknownColumns }).map((name) => (name === undefined ? -1 : fields.indexOf(name)));
          continue;
        }
        fileRow++;
        if (position++ < skip) continue;
        builder.append(fields, indexes);
        if (builder.rows === BATCH_ROWS) yield batch();
      }
      if (builder.rows > 0) yield batch();
    }
  }

  /** A listed file, every read of it pinned to the version listed. */
  #pinned(file: FileReadPosition): PinnedFile {
    const { root, key } = splitObjectUri(file.uri);
    return pinnedFile(this.#openStore(root), key, file);
  }

  #openParquet(file: FileReadPosition): ReturnType<typeof openParquetFile> {
    return openParquetFile(this.#pinned(file), this.#columns, this.#spec.unknownColumns);
  }

  /**
   * The file's objects projected onto the table's columns; a file whose objects have keys but none
   * of the table's is refused (column-names.ts), and so, unless `unknownColumns` is `ignore`, is an
   * object with a key that no table column took.
   */
  async *#ndjsonRows(file: FileReadPosition): AsyncIterable<SourceRow> {
    const { uri } = file;
    const text = utf8Text(chunks(this.#pinned(file)));
    const options: TextOptions = { allowUnterminatedLastLine: this.#spec.allowUnterminatedLastLine };
    const strict = this.#spec.unknownColumns === 'fail';
    const columns = new Set(this.#columns);
    let keys = false; // some object had a key
    let shared = false; // some object had a key of the table
    const named: (string | undefined)[] = this.#columns.map(() => undefined); // each column's key in the file so far
    for await (const line of ndjsonLines(text, uri, options)) {
      const object = parseJsonLine(line, uri);
      const row = this.#project(object, uri, named);
      keys ||= row.matched || Object.keys(object).length > 0;
      shared ||= row.matched;
      if (strict) {
        // A key is taken when it is a column's own name, or the one a column was read by (`named`: a
        // name matched ignoring case, the same in every object of the file, as #project requires).
        for (const key of Object.keys(object)) {
          if (!columns.has(key) && !named.includes(key)) throw unknownColumn(key, this.#columns, named, uri);
        }
      }
      yield row.values;
    }
    if (keys && !shared) throw noSharedColumn(uri, 'ndjson');
  }

  /**
   * An object's value for each table column: its own key of that name, else its one own key equal
   * to it ignoring case (column-names.ts); never an inherited property (`__proto__`, `constructor`,
   * `toString` of Object.prototype), which a key the object lacks would otherwise read. `named`:
   * the key each column was read by in the file's objects before; a column the file names two ways
   * (`Amount` in one object, `AMOUNT` or `amount` in another) is refused, as two such names in one
   * object or a CSV header are: which of them is the column would be a guess.
   */
  #project(object: Readonly<Record<string, unknown>>, uri: string, named: (string | undefined)[]): { values: SourceRow; matched: boolean } {
    let keys: string[] | undefined;
    let matched = false;
    const values = this.#columns.map((c, i) => {
      const key = Object.hasOwn(object, c) ? c : matchColumn(c, (keys ??= Object.keys(object)), uri, this.#columns);
      if (key === undefined) return null;
      const before = named[i];
      if (before === undefined) named[i] = key;
      else if (before !== key) {
        throw errorFrom(sourceErrors, 'SOURCE_SCHEMA_MISMATCH', `${uri}: its objects name column ${c} both ${before} and ${key}`, { file: uri, column: c });
      }
      matched = true;
      return jsonValue(object[key]);
    });
    return { values, matched };
  }
}

/** How a loaded file is remembered (newFilesOnly): its URI and ETag. */
export function loadedFileKey(uri: string, etag: string): string {
  return `${uri}\u0000${etag}`;
}

function parquetPosition(from: SourcePosition | undefined): { file: number; row: number } {
  if (from === undefined) return { file: 0, row: 0 };
  if (typeof from === 'object' && typeof from.file === 'number' && typeof from.row === 'number') return { file: from.file, row: from.row };
  throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', `a Parquet shard resumes at {file, row}, not ${JSON.stringify(from)}`);
}

/** The listed version of a file, CHUNK_BYTES at a time. */
async function* chunks(file: PinnedFile): AsyncIterable<Uint8Array> {
  for (let offset = 0; offset < file.size; offset += CHUNK_BYTES) yield await file.read(offset, Math.min(CHUNK_BYTES, file.size - offset));
}

function jsonValue(value: unknown): SourceValue {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  const numberText = rawJsonText(value); // a number a double does not hold exactly: its text
  if (numberText !== undefined) return numberText;
  return JSON.stringify(value); // nested values reach a string column as JSON text, or fail conversion
}

/** The stores a files source reads: with the S3 connection it names (looked up here), or the process's own. */
function filesStore(spec: FilesSourceSpec, context: SourceContext): OpenStore {
  if (spec.connection === undefined) return context.openStore;
  const credentials = s3Credentials(spec.connection, context.access);
  const open = context.openCredentialedStore;
  if (open === undefined) throw errorFrom(sourceErrors, 'SOURCE_SPEC_INVALID', 'this process cannot open stores with a source connection');
  return (root) => open(root, credentials);
}
