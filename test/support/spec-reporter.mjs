// node's spec reporter, except that a todo test that fails is shown as the known gap it is: its
// line keeps the todo reason, but it is not listed with its stack trace under "failing tests" (the
// run does not fail on it either). summary-reporter.mjs lists the todo tests under their own header.
import { Readable } from 'node:stream';
import { spec } from 'node:test/reporters';

/** Is this event a todo test's (todo is `true` or the reason string)? */
export const isTodo = (data) => data.todo !== undefined && data.todo !== false;

async function* todoFailuresAsPasses(source) {
  for await (const event of source) {
    if (event.type === 'test:fail' && isTodo(event.data)) {
      const { error: _error, ...details } = event.data.details;
      const todo = `${typeof event.data.todo === 'string' ? `${event.data.todo} ` : ''}(fails as expected)`;
      yield { ...event, type: 'test:pass', data: { ...event.data, todo, details } };
    } else {
      yield event;
    }
  }
}

export default async function* specWithTodos(source) {
  yield* Readable.from(todoFailuresAsPasses(source)).pipe(new spec());
}
