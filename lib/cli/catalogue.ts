// `lagoon models list`: the catalogue as the server would load it (LAGOON_MODELS, or the default catalogue).
import { loadConfig } from '../config.ts';
import { DEFAULT_CATALOGUE, loadCatalogue } from '../models/catalogue.ts';
import { options } from './usage.ts';

export async function modelsList(args: string[]): Promise<void> {
  options(args, []);
  const config = loadConfig();
  // With the extra file's models (LAGOON_MODELS_EXTRA), as the server loads it.
  const cat = loadCatalogue(config.modelsFile ?? DEFAULT_CATALOGUE, config.catalogueVar, config.modelsExtra);
  for (const m of cat.models) {
    console.log(
      `${m.id}\t${m.type}\t${m.tier}\t$${m.pricing.input_usd}/$${m.pricing.output_usd} per 1M\t${m.engine.kind}${m.demo ? '\t(demo)' : ''}\t${m.name}`,
    );
  }
}
