// Builds the deploy tests' images ahead of them: `npm test` starts this in the background (at the lowest CPU
// priority) when a run includes e2e/deploy, so the minutes of a cold build overlap the rest of the suite. The tests
// build the same tags under the same lock and then find every layer cached. A failure here is only logged: the tests
// build again and report it.
import { baseImage, buildImage, containersMissing, TEST_IMAGES } from './containers.ts';

if (!containersMissing()) {
  const t = performance.now();
  try {
    const base = await baseImage();
    await buildImage(TEST_IMAGES.lagoon.tag, TEST_IMAGES.lagoon.file, TEST_IMAGES.lagoon.context, base);
    if (!containersMissing('podman-compose', 'iptables')) {
      for (const i of [TEST_IMAGES.postgres, TEST_IMAGES.redis]) await buildImage(i.tag, i.file, i.context, base);
    }
    console.log(`image-prebuild: built in ${((performance.now() - t) / 1000).toFixed(0)} s`);
  } catch (e) {
    console.log(`image-prebuild: failed after ${((performance.now() - t) / 1000).toFixed(0)} s: ${(e as Error).message}`);
  }
}
