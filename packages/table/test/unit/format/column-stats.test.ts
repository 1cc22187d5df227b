// A string column's min and max: the native UTF-16 comparison is taken only when it equals UTF-8
// byte order (no unit at or above U+E000); both paths must give compareUtf8's min and max.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { batchFromRows } from '../../../src/format/column-batch.ts';
import { columnStats } from '../../../src/format/column-stats.ts';
import { compareUtf8 } from '../../../src/spec/key-comparator.ts';
import { parseDataType } from '../../../src/spec/data-type-json.ts';

const rowType = { fields: [{ id: 0, name: 's', type: parseDataType('STRING') }] };
const unit = fc.constantFrom('', 'a', 'z', 'é', 'Ω', '中', '\ud7ff', '😀', '𝄞', '\ue000', '\uf8ff', '\ufeff', '\uffff', '\u0000');

test('string stats equal compareUtf8 min and max, with and without units at or above U+E000, NULLs and empty strings', () => {
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.constant(null), fc.string({ unit, maxLength: 4 }), fc.string({ unit: 'grapheme', maxLength: 4 })), { minLength: 1, maxLength: 40 }), (values) => {
      const stats = columnStats(batchFromRows(rowType, values.map((v) => [v])).columns[0]!, values.length);
      const present = values.filter((v): v is string => v !== null).sort(compareUtf8);
      assert.equal(stats.nullCount, values.length - present.length);
      assert.equal(stats.min, present.length === 0 ? null : present[0]);
      assert.equal(stats.max, present.length === 0 ? null : present[present.length - 1]);
    }),
    { numRuns: 1000 },
  );
});
