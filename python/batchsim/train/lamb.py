"""LAMB (You et al., 2020): Adam's update, rescaled per parameter tensor by the trust ratio
||w|| / ||update||, which keeps large-batch training stable at learning rates that plain
Adam diverges with. The paper's recipe trains its policy with it."""

from __future__ import annotations

import torch


class Lamb(torch.optim.Optimizer):
    """lr, betas, eps and weight_decay as in AdamW; the trust ratio is clamped to
    [0, max_trust] and is 1 where either norm is zero (fresh zero-initialised layers).
    A parameter group with ``trust=False`` takes plain Adam steps: `lamb_groups` puts the
    biases, scalars and the output heads there, whose small norms would otherwise freeze
    them (an actor initialised with gain 0.01 would move by lr x 0.01 per step).
    `foreach` (default) steps a group's parameters with multi-tensor kernels; False takes
    them one at a time, the reference the test compares with."""

    def __init__(
        self,
        params,
        lr=1e-3,
        betas=(0.9, 0.999),
        eps=1e-6,
        weight_decay=0.0,
        max_trust=10.0,
        foreach=True,
    ):
        if lr <= 0 or eps <= 0 or not 0 <= betas[0] < 1 or not 0 <= betas[1] < 1:
            raise ValueError(f"Lamb: invalid lr={lr}, eps={eps} or betas={betas}")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, max_trust=max_trust)
        super().__init__(params, defaults)
        self.foreach = foreach  # one multi-tensor kernel per operation, not one per parameter

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            params = [p for p in group["params"] if p.grad is not None]
            if params:
                states = [self._advance_state(p) for p in params]
                (self._step_foreach if self.foreach else self._step_each)(group, params, states)
        return loss

    def _advance_state(self, p: torch.Tensor) -> dict:
        """p's moments (zeros at first) with its step count raised by one."""
        state = self.state[p]
        if not state:
            state["step"] = 0
            state["m"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["v"] = torch.zeros_like(p, memory_format=torch.preserve_format)
        state["step"] += 1
        return state

    def _step_each(self, group: dict, params: list, states: list) -> None:
        """The reference: Adam's update and the trust ratio, a parameter at a time."""
        beta1, beta2 = group["betas"]
        for p, state in zip(params, states, strict=True):
            m, v = state["m"], state["v"]
            m.mul_(beta1).add_(p.grad, alpha=1 - beta1)
            v.mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
            m_hat = m / (1 - beta1 ** state["step"])
            v_hat = v / (1 - beta2 ** state["step"])
            update = m_hat / (v_hat.sqrt() + group["eps"])
            if group["weight_decay"]:
                update.add_(p, alpha=group["weight_decay"])
            if not group.get("trust", True):
                p.add_(update, alpha=-group["lr"])
                continue
            weight_norm, update_norm = p.norm(), update.norm()
            p.add_(update * self._trust(weight_norm, update_norm, group), alpha=-group["lr"])

    def _step_foreach(self, group: dict, params: list, states: list) -> None:
        """The same arithmetic over all of the group's parameters at once."""
        beta1, beta2 = group["betas"]
        grads = [p.grad for p in params]
        ms, vs = [s["m"] for s in states], [s["v"] for s in states]
        torch._foreach_mul_(ms, beta1)
        torch._foreach_add_(ms, grads, alpha=1 - beta1)
        torch._foreach_mul_(vs, beta2)
        torch._foreach_addcmul_(vs, grads, grads, value=1 - beta2)
        updates = torch._foreach_div(ms, [1 - beta1 ** s["step"] for s in states])
        denominators = torch._foreach_div(vs, [1 - beta2 ** s["step"] for s in states])
        torch._foreach_sqrt_(denominators)
        torch._foreach_add_(denominators, group["eps"])
        torch._foreach_div_(updates, denominators)
        if group["weight_decay"]:
            torch._foreach_add_(updates, params, alpha=group["weight_decay"])
        if group.get("trust", True):
            weight_norms = torch.stack(torch._foreach_norm(params))
            update_norms = torch.stack(torch._foreach_norm(updates))
            trust = self._trust(weight_norms, update_norms, group)
            torch._foreach_mul_(updates, list(trust.unbind()))
        torch._foreach_add_(params, updates, alpha=-group["lr"])

    @staticmethod
    def _trust(weight_norm: torch.Tensor, update_norm: torch.Tensor, group: dict) -> torch.Tensor:
        """||w|| / ||update||, clamped to max_trust; 1 where either norm is zero."""
        return torch.where(
            (weight_norm > 0) & (update_norm > 0),
            (weight_norm / update_norm).clamp(max=group["max_trust"]),
            torch.ones_like(weight_norm),
        )


def lamb_groups(model: torch.nn.Module, heads: tuple[str, ...]) -> list[dict]:
    """Parameter groups for Lamb: weight matrices and kernels with the trust ratio; biases,
    scalars and parameters under the `heads` module names without it."""
    scaled, plain = [], []
    for name, parameter in model.named_parameters():
        is_head = name.split(".")[0] in heads
        (plain if parameter.ndim < 2 or is_head else scaled).append(parameter)
    return [{"params": scaled}, {"params": plain, "trust": False}]
