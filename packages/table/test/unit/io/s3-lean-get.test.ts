import assert from 'node:assert/strict';
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { test } from 'node:test';
import { LeanGet } from '../../../src/io/s3-lean-get.ts';

const credentials = { accessKeyId: 'id', secretAccessKey: 'secret' };

test('reads skip the SDK pipeline only on a custom endpoint with path-style URLs', () => {
  const cases: Array<[string, S3ClientConfig, boolean]> = [
    ['custom endpoint, path style', { region: 'us-east-1', endpoint: 'http://127.0.0.1:9100', forcePathStyle: true, credentials }, true],
    ["AWS's own endpoints", { region: 'eu-west-1', credentials }, false],
    ['AWS, path style', { region: 'eu-west-1', forcePathStyle: true, credentials }, false],
    ['custom endpoint, virtual-hosted', { region: 'us-east-1', endpoint: 'http://127.0.0.1:9100', forcePathStyle: false, credentials }, false],
    ['an endpoint that names the bucket', { region: 'us-east-1', endpoint: 'http://bucket.example:9100', forcePathStyle: true, bucketEndpoint: true, credentials }, false],
  ];
  for (const [name, config, lean] of cases) {
    const client = new S3Client(config);
    try {
      assert.equal(LeanGet.of(client) !== undefined, lean, name);
    } finally {
      client.destroy();
    }
  }
});
