// `payforge machine --json`: the lifecycle machine definition, for the Stately editor.
import { intentMachine } from '../../machines/intent.machine';
import { parse, print } from './common';

export async function machine(argv: string[]): Promise<void> {
  // --json is the only output there is; accepted so the documented spelling works.
  parse(argv, { json: { type: 'boolean' } });
  print(intentMachine.toJSON());
}
