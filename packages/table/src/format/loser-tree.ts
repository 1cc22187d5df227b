/**
 * A tournament (loser) tree over k sorted runs: the smallest run's head in O(1), and after that
 * run advanced or ended, the next smallest in exactly ⌈log2 k⌉ comparisons (a binary heap's sift
 * down takes up to two per level). A compaction merges thousands of runs (a bucket's small level-0
 * files), where the merge's comparisons are a good part of its cost.
 *
 * Leaves are the runs 0…k-1 (leaf i at position k + i of an implicit complete tree, parent p >> 1);
 * each inner node 1…k-1 keeps the run that lost the match played there, node 0 the overall winner.
 * An ended run compares greater than every live one. Runs that compare equal come out in index
 * order, so the order of the whole merge is fixed by the comparison and the runs' order.
 */
export class LoserTree<T> {
  readonly #runs: (T | undefined)[];
  readonly #tree: Int32Array;
  readonly #compare: (a: T, b: T) => number;
  readonly #k: number;

  /** `runs`: the runs' current heads (undefined: an empty run). */
  constructor(runs: readonly (T | undefined)[], compare: (a: T, b: T) => number) {
    const k = runs.length;
    this.#runs = [...runs];
    this.#compare = compare;
    this.#k = k;
    this.#tree = new Int32Array(Math.max(1, k));
    if (k === 0) return;
    // Winners of each subtree, bottom up: leaves k…2k-1, then inner nodes k-1…1.
    const winners = new Int32Array(2 * k);
    for (let i = 0; i < k; i++) winners[k + i] = i;
    for (let node = k - 1; node >= 1; node--) {
      const a = winners[2 * node] as number;
      const b = winners[2 * node + 1] as number;
      const aWins = this.#before(a, b);
      winners[node] = aWins ? a : b;
      this.#tree[node] = aWins ? b : a;
    }
    this.#tree[0] = k === 1 ? 0 : (winners[1] as number);
  }

  /** The smallest head, undefined once every run ended. */
  peek(): T | undefined {
    return this.#k === 0 ? undefined : this.#runs[this.#tree[0] as number];
  }

  /** The winner's run advanced: its new head (undefined: the run ended). */
  replaceTop(head: T | undefined): void {
    if (this.#k === 0) return;
    const tree = this.#tree;
    let winner = tree[0] as number;
    this.#runs[winner] = head;
    for (let node = (winner + this.#k) >> 1; node > 0; node >>= 1) {
      const loser = tree[node] as number;
      if (this.#before(loser, winner)) {
        tree[node] = winner;
        winner = loser;
      }
    }
    tree[0] = winner;
  }

  /** Whether run a's head comes before run b's: ended runs last, ties by run index. */
  #before(a: number, b: number): boolean {
    const x = this.#runs[a];
    const y = this.#runs[b];
    if (x === undefined) return false;
    if (y === undefined) return true;
    const c = this.#compare(x, y);
    return c < 0 || (c === 0 && a < b);
  }
}
