"""Large-batch PPO for PointNav on batchsim.Simulator (needs torch: the `train` extra).

    config       TrainConfig, one docstring per field, and its checks
    presets      named presets; make_config: preset, JSON file, key=value overrides
    setup        the parts built from a config: environments, optimiser, PPO settings
    launch       one process per GPU through torch.distributed.run; Slurm tasks as ranks
    cpus         the simulation threads of a process: its cores, shared, less busy ones
    trainer      Trainer: rollouts from simulator halves, PPO updates, episode metrics
    run          train(): the loop behind `batchsim train` (progress, logs, checkpoints)
    models       policies: visual encoders, recurrent core, actor and critic heads
    recurrence   the recurrent core over rollouts with episode resets (stepwise, segments)
    auxiliary    CPC|A, the auxiliary loss on the recurrent core's belief
    inverse_dynamics   the action between two views, an auxiliary loss on the encoder
    temporal_distance  the steps between two views of an episode, an auxiliary loss
    value_norm   PopArt: the critic on normalised returns, its outputs preserved
    acting       rollout inference: sampling, CUDA graphs
    ppo          one PPO update over a rollout
    storage      rollout storage, allocated once on the training device
    lamb         the LAMB optimizer
    schedule     the learning-rate recipe for large batches; linear annealing
    checkpoint   checkpoints written atomically; load_policy for eval and video
    snapshots    policy-only snapshots during training, for held-out curves afterwards
    intervals    95% confidence intervals of evaluation measures (Wilson, bootstrap)
    elapsed      seconds since the command started (start-up included), over resumes
    distributed  several ranks (DDP, statistics across ranks)
    evaluate     every episode of a split once: agents, measures, 95% intervals
    video        episodes recorded as frames (batchsim.viz draws them)
    curve        learning curves as PNGs (logs, held-out snapshots); first_reaching

Nothing is imported here, so `import batchsim.train.config` needs no torch."""
