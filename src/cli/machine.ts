// `payforge machine --json`: the lifecycle machine's CONFIG (what createMachine takes, with guards,
// actions and actors by name), so `createMachine(JSON.parse(output))` and Stately's editor rebuild
// the same states and transitions. Functions (context factory, invoke inputs) are implementation
// details supplied by the runtime; JSON drops them.
import { intentMachine } from '../../machines/intent.machine';
import { parse, print } from './common';

export async function machine(argv: string[]): Promise<void> {
  // --json is the only output there is; accepted so the documented spelling works.
  parse(argv, { json: { type: 'boolean' } });
  print(intentMachine.config);
}
