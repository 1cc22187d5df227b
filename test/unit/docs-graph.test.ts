import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BEGIN, END, edges, renderGraph, replaceSection, type Import } from '../../scripts/docs-graph.ts';

const pkg = (path: string) => /^packages\/([^/]+)\/src\//.exec(path)?.[1];

test('edges count importing files per package pair, skip imports within a package and npm packages', () => {
  const imports: Import[] = [
    { from: 'packages/a/src/x.ts', to: 'packages/b/src/index.ts', npm: false },
    { from: 'packages/a/src/y.ts', to: 'packages/b/src/index.ts', npm: false },
    { from: 'packages/a/src/y.ts', to: 'packages/b/src/other.ts', npm: false },
    { from: 'packages/a/src/x.ts', to: 'packages/a/src/y.ts', npm: false },
    { from: 'packages/b/src/z.ts', to: 'zod', npm: true },
  ];
  const graph = edges(imports, pkg);
  assert.deepEqual([...graph.keys()], ['a']);
  assert.deepEqual([...(graph.get('a')?.get('b') ?? [])].sort(), ['packages/a/src/x.ts', 'packages/a/src/y.ts']);
});

test('the rendering names two-way imports', () => {
  const imports: Import[] = [
    { from: 'packages/read/src/a.ts', to: 'packages/write/src/b.ts', npm: false },
    { from: 'packages/write/src/b.ts', to: 'packages/read/src/a.ts', npm: false },
  ];
  const lines = renderGraph(edges(imports, pkg));
  assert.ok(lines.includes('  read["read"] -->|1| write["write"]'), lines.join('\n'));
  assert.ok(lines.includes('Two-way imports: read ⇄ write.'), lines.join('\n'));
});

test('only the section between the markers is replaced; a doc without them is refused', () => {
  const doc = `intro\n${BEGIN}\nold\n${END}\noutro\n`;
  assert.equal(replaceSection(doc, `${BEGIN}\nnew\n${END}`), `intro\n${BEGIN}\nnew\n${END}\noutro\n`);
  assert.throws(() => replaceSection('no markers', 'x'), /has no/);
});
