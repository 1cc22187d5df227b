import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { services, uniqueName } from '@tributary/testkit';
import { S3ObjectStore, type ObjectStore } from '@tributary/table';
import { tableSuite } from './table-suite.ts';

const { bucket, endpoint, region, accessKeyId, secretAccessKey } = services.s3;

async function ensureBucket(): Promise<void> {
  const client = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
  try {
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
  } catch (error) {
    const name = (error as { name?: unknown }).name;
    if (name !== 'BucketAlreadyOwnedByYou' && name !== 'BucketAlreadyExists') throw error;
  } finally {
    client.destroy();
  }
}

tableSuite(
  'MinIO (S3)',
  async () => {
    await ensureBucket();
    return new S3ObjectStore({ bucket, prefix: uniqueName('table-api'), endpoint, region, accessKeyId, secretAccessKey });
  },
  async (store: ObjectStore) => {
    const keys: string[] = [];
    for await (const meta of store.list('')) keys.push(meta.key);
    await store.deleteMany(keys);
    await store.close();
  },
);
