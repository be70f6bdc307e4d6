#!/usr/bin/env python3
"""Record a real JAX profile (an XSpace, .xplane.pb in a TensorBoard logdir) on a GPU.

Usage (on a machine with a CUDA GPU and JAX):

    python3 examples/gpu/record_jax_profile.py LOGDIR

Trains a small MLP with a jitted SGD step for a few steps under jax.profiler.trace(LOGDIR),
with each step wrapped in jax.profiler.StepTraceAnnotation("train", step_num=N) so the
profile has step markers. The profiler writes LOGDIR/plugins/profile/<run>/<host>.xplane.pb.
"""

import sys

import jax
import jax.numpy as jnp

STEPS = 6


def init(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return {"w1": jax.random.normal(k1, (1024, 2048)) * 0.02, "w2": jax.random.normal(k2, (2048, 2048)) * 0.02,
            "w3": jax.random.normal(k3, (2048, 10)) * 0.02}


def loss_fn(p, x, y):
    h = jax.nn.relu(x @ p["w1"])
    h = jax.nn.relu(h @ p["w2"])
    logits = h @ p["w3"]
    return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * jax.nn.one_hot(y, 10), axis=-1))


@jax.jit
def step(p, x, y):
    g = jax.grad(loss_fn)(p, x, y)
    return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g)


if __name__ == "__main__":
    logdir = sys.argv[1] if len(sys.argv) > 1 else "jax_logdir"
    key = jax.random.PRNGKey(0)
    p = init(key)
    x = jax.random.normal(key, (512, 1024))
    y = jnp.arange(512) % 10
    p = step(p, x, y)  # compile outside the profile
    jax.block_until_ready(p)
    with jax.profiler.trace(logdir):
        for i in range(STEPS):
            with jax.profiler.StepTraceAnnotation("train", step_num=i):
                # a host-side batch each step, like a real input pipeline
                xb = jnp.asarray(jax.device_get(x) * 1.0)
                p = step(p, xb, y)
                jax.block_until_ready(p)
    print("profile written under", logdir)
