/**
 * A binary min-heap, small on purpose: the k-way merges of reads (read/sort-merge-reader.ts,
 * read/shared-keys.ts) hold one entry per sorted run in it (the bucket merge of a load or a
 * compaction uses a tournament tree, loser-tree.ts).
 */
export class MinHeap<T> {
  private readonly items: T[] = [];
  private readonly compare: (a: T, b: T) => number;

  constructor(compare: (a: T, b: T) => number) {
    this.compare = compare;
  }

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(items[i] as T, items[parent] as T) >= 0) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.siftDownTop();
    }
    return top;
  }

  /** Restores the heap after the top entry's value grew. */
  siftDownTop(): void {
    const items = this.items;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < items.length && this.compare(items[left] as T, items[smallest] as T) < 0) smallest = left;
      if (right < items.length && this.compare(items[right] as T, items[smallest] as T) < 0) smallest = right;
      if (smallest === i) return;
      this.swap(i, smallest);
      i = smallest;
    }
  }

  private swap(i: number, j: number): void {
    const items = this.items;
    const a = items[i] as T;
    items[i] = items[j] as T;
    items[j] = a;
  }
}
