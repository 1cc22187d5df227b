/**
 * A streamed upload into reused part buffers: the runs' uploads (PutOptions.readerVerifies, sent
 * unsigned by the store's second client).
 *
 * lib-storage's `Upload` joins the chunks it is given into each part with `Buffer.concat`: a new
 * buffer of a part's size for every part, 0.58 GB per worker in a load of 8 × 1,000,000 rows, each
 * one more towards V8's next full collection (bench/load/README.md, "The collector's own
 * threads"). Here the chunks are copied into part buffers taken from a pool the store keeps; a
 * buffer goes back to it once its part's request is answered, when nothing reads it any more.
 *
 * As with lib-storage: a body that ends within the first part goes up as one PutObject; a longer
 * one as a multipart upload, at most `queueSize` parts in flight (the body is not read while they
 * are); and if anything fails, the body or a request, the multipart upload is aborted and nothing
 * becomes visible. Checksums are not asked for (the client sends no body checksum for these), so
 * CompleteMultipartUpload lists each part by number and ETag only.
 */
import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, PutObjectCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';

/** The most parts an S3 multipart upload may have. */
const MAX_PARTS = 10_000;

/** Part buffers of one size, kept between uploads (at most `keep` of them). */
export class PartPool {
  readonly partSize: number;
  readonly #keep: number;
  readonly #free: Uint8Array[] = [];

  constructor(partSize: number, keep: number) {
    this.partSize = partSize;
    this.#keep = keep;
  }

  take(): Uint8Array {
    return this.#free.pop() ?? new Uint8Array(this.partSize);
  }

  give(buffer: Uint8Array): void {
    if (this.#free.length < this.#keep) this.#free.push(buffer);
  }
}

export interface PartsUpload {
  readonly client: S3Client;
  readonly Bucket: string;
  readonly Key: string;
  readonly pool: PartPool;
  /** Parts in flight at most (each holds a buffer of the pool). */
  readonly queueSize: number;
}

export async function uploadInParts(upload: PartsUpload, body: AsyncIterable<Uint8Array>): Promise<void> {
  const { client, Bucket, Key, pool } = upload;
  const partSize = pool.partSize;
  let part = pool.take();
  let filled = 0;
  let uploadId: string | undefined;
  let nextPart = 1;
  const sent: { PartNumber: number; ETag: string }[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: { error: unknown } | undefined;

  /** `part`'s `filled` bytes go up as the next part (the multipart upload starts with the first). */
  const sendPart = async (): Promise<void> => {
    uploadId ??= (await client.send(new CreateMultipartUploadCommand({ Bucket, Key }))).UploadId;
    if (uploadId === undefined) throw new Error('the store started a multipart upload with no id');
    const buffer = part;
    const PartNumber = nextPart++;
    if (PartNumber > MAX_PARTS) throw new Error(`an object of more than ${MAX_PARTS} parts of ${partSize} bytes (S3's limit)`);
    const sending: Promise<void> = client
      .send(new UploadPartCommand({ Bucket, Key, UploadId: uploadId, PartNumber, Body: buffer.subarray(0, filled), ContentLength: filled }))
      .then((out) => {
        if (out.ETag === undefined) throw new Error(`the store answered part ${PartNumber} with no ETag`);
        sent.push({ PartNumber, ETag: out.ETag });
        pool.give(buffer); // answered: nothing reads it any more (a failed request's is not given back)
      })
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => inFlight.delete(sending));
    inFlight.add(sending);
  };
  const settle = async (most: number): Promise<void> => {
    while (inFlight.size > most && failure === undefined) await Promise.race(inFlight);
    if (failure !== undefined) throw failure.error;
  };

  try {
    for await (const chunk of body) {
      let at = 0;
      while (at < chunk.length) {
        // A full part goes up only when more bytes follow: a body of exactly one part is one PutObject.
        if (filled === partSize) {
          await sendPart();
          part = pool.take();
          filled = 0;
          await settle(upload.queueSize - 1);
        }
        const n = Math.min(partSize - filled, chunk.length - at);
        part.set(n === chunk.length ? chunk : chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
      }
    }
    if (uploadId === undefined) {
      await client.send(new PutObjectCommand({ Bucket, Key, Body: part.subarray(0, filled), ContentLength: filled }));
      pool.give(part);
      return;
    }
    await sendPart();
    await settle(0);
    const Parts = sent.sort((a, b) => a.PartNumber - b.PartNumber);
    await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId: uploadId, MultipartUpload: { Parts } }));
  } catch (error) {
    while (inFlight.size > 0) await Promise.race(inFlight);
    if (uploadId !== undefined) await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId: uploadId })).catch(() => undefined);
    throw error;
  }
}
