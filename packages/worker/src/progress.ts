/**
 * A running attempt's progress, sent on a timer of its own every `intervalMs` while it changed
 * (batches may arrive faster, flooding Redis, or slower, leaving bytes streamed meanwhile unseen).
 * Best effort: a failed send is tried again at the next tick. `stop` waits for a send in flight,
 * so nothing of the attempt's progress lands after its final report.
 */
export interface Progress {
  readonly rows: number;
  readonly bytes: number;
  /** Rows rejected so far (the `reject` bad-row policy). */
  readonly rejected?: number;
}

export function progressReporter(
  read: () => Progress,
  send: (progress: Progress) => Promise<void>,
  intervalMs: number,
): { stop: () => Promise<void> } {
  let sent: Progress | undefined;
  let inFlight: Promise<void> | undefined;
  const tick = () => {
    if (inFlight !== undefined) return;
    const now = read();
    if (sent !== undefined && now.rows === sent.rows && now.bytes === sent.bytes) return;
    inFlight = send(now).then(
      () => void (sent = now),
      () => undefined,
    );
    void inFlight.finally(() => (inFlight = undefined));
  };
  const timer = setInterval(tick, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
    },
  };
}
