"""TrainConfig.compile_encoder: when the encoder is compiled, the fallbacks, and (on CUDA)
that the compiled encoder computes what the eager one does."""

import pytest
import torch

from batchsim.train import compiled
from batchsim.train.models import Policy
from batchsim.train.presets import make_config


def _policy() -> Policy:
    return Policy("se_resnet9", 1, hidden=64, layers=1)


def test_off_and_auto_on_the_cpu_stay_eager():
    policy = _policy()
    cpu = torch.device("cpu")
    assert compiled.compile_encoders([policy], "off", cpu) is False
    assert compiled.compile_encoders([policy], "auto", cpu) is False
    assert policy.encoder._compiled_call_impl is None


def test_on_where_inductor_cannot_run_names_why():
    with pytest.raises(RuntimeError, match=r"compile_encoder=on.*only CUDA is compiled"):
        compiled.compile_encoders([_policy()], "on", torch.device("cpu"))


def test_auto_on_cuda_without_a_working_inductor_warns_and_stays_eager(monkeypatch):
    monkeypatch.setattr(compiled, "inductor_works", lambda device_type: "no compiler")
    policy = _policy()
    with pytest.warns(UserWarning, match="stays eager \\(no compiler\\)"):
        assert compiled.compile_encoders([policy], "auto", torch.device("cuda")) is False
    assert policy.encoder._compiled_call_impl is None


def test_compiling_keeps_the_checkpoint_keys_and_compiles_each_policy_once(monkeypatch):
    monkeypatch.setattr(compiled, "inductor_works", lambda device_type: None)
    policy, other = _policy(), _policy()
    keys = list(policy.state_dict())
    assert compiled.compile_encoders([policy, policy, other], "on", torch.device("cuda"))
    assert list(policy.state_dict()) == keys
    assert policy.encoder._compiled_call_impl is not None
    assert other.encoder._compiled_call_impl is not None


def test_a_bad_choice_is_refused():
    with pytest.raises(ValueError, match="compile_encoder: expected one of"):
        compiled.compile_encoders([_policy()], "yes", torch.device("cpu"))
    with pytest.raises(ValueError, match="compile_encoder: expected one of"):
        make_config("demo", None, ["compile_encoder=maybe"]).validate()


@pytest.mark.skipif(not torch.cuda.is_available(), reason="Inductor is used on CUDA only")
def test_the_compiled_encoder_matches_the_eager_one_on_cuda():
    if compiled.inductor_works("cuda") is not None:
        pytest.skip(compiled.inductor_works("cuda"))
    torch.manual_seed(0)
    policy = _policy().cuda()
    policy.use_channels_last()
    x = torch.rand(256, 1, 64, 64, device="cuda")
    want = policy.encoder(x.contiguous(memory_format=torch.channels_last))
    assert compiled.compile_encoders([policy], "on", torch.device("cuda"))
    got = policy.encoder(x.contiguous(memory_format=torch.channels_last))
    # fp32 both: Inductor may reorder the fused elementwise math, so not bit for bit.
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)
