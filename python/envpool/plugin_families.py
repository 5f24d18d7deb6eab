"""Task families that come in plugin packages (a GPL-licensed emulator cannot be in envpool-ng
itself): their task ids, so that asking for one whose package is not installed says which
package provides it and how to install it, rather than reading as a typo; and gymnasium's
(ale-py's) Atari ids, which point to envpool's id and the options that match them.

Kept here as a static list (not read from the plugin, which is what is missing): the Atari
games are ale-py 0.12.1's v5 games, as plugins/atari/cmake/gen_games.py lists them
(tests/registry/test_known_tasks.py checks the two agree where the plugin is installed).
"""

from __future__ import annotations

import dataclasses
import re

# plugins/atari: ale-py 0.12.1's ROM set less its multiplayer-only ROMs, as ale-py names its v5 ids.
ATARI_GAMES = tuple(
    """
    Adventure AirRaid Alien Amidar Assault Asterix Asteroids Atlantis Atlantis2 Backgammon BankHeist
    BasicMath BattleZone BeamRider Berzerk Blackjack Bowling Boxing Breakout Carnival Casino
    Centipede ChopperCommand CrazyClimber Crossbow Darkchambers Defender DemonAttack DonkeyKong
    DoubleDunk Earthworld ElevatorAction Enduro Entombed Et FishingDerby FlagCapture Freeway Frogger
    Frostbite Galaxian Gopher Gravitar Hangman HauntedHouse Hero HumanCannonball IceHockey Jamesbond
    JourneyEscape Kaboom Kangaroo KeystoneKapers KingKong Klax Koolaid Krull KungFuMaster LaserGates
    LostLuggage MarioBros MiniatureGolf MontezumaRevenge MrDo MsPacman NameThisGame Othello Pacman
    Phoenix Pitfall Pitfall2 Pong Pooyan PrivateEye Qbert Riverraid RoadRunner Robotank Seaquest
    SirLancelot Skiing Solaris SpaceInvaders SpaceWar StarGunner Superman Surround Tennis Tetris
    TicTacToe3D TimePilot Trondead Turmoil Tutankham UpNDown Venture VideoCheckers VideoChess
    VideoCube VideoPinball WizardOfWor WordZapper YarsRevenge Zaxxon
    """.split()
)


@dataclasses.dataclass(frozen=True)
class PluginFamily:
    name: str
    distribution: str
    install: str
    docs: str
    task_ids: frozenset[str]


ATARI = PluginFamily(
    name="Atari",
    distribution="envpool-ng-atari",
    install="pip install --no-build-isolation ./plugins/atari  (from an envpool checkout, after envpool-ng itself)",
    docs="docs/atari.md",
    # With the reference EnvPool's spelling of a game where it differs (the plugin's aliases):
    # it capitalizes each word of the ROM name, so tic_tac_toe_3d is TicTacToe3d there.
    task_ids=frozenset({f"{game}-v5" for game in ATARI_GAMES} | {"TicTacToe3d-v5"}),
)
PLUGIN_FAMILIES = (ATARI,)

# gymnasium's Atari ids (ale-py registers them): ALE/<Game>-v5, and the v0/v4 ids
# <Game>[NoFrameskip|Deterministic][-ram]-v0|v4.
_ALE_V5 = re.compile(r"^ALE/(?P<game>[A-Za-z0-9]+?)(?P<ram>-ram)?-v5$")
_GYM_V04 = re.compile(
    r"^(?P<game>[A-Za-z0-9]+?)(?P<variant>NoFrameskip|Deterministic)?(?P<ram>-ram)?-v(?P<version>[04])$"
)


def _ale_options(match: re.Match, v5: bool) -> tuple[dict[str, object], str]:
    """The kwargs of envpool's <Game>-v5 that give the ALE settings of the gymnasium id ``match``
    (ale_py/registration.py), and a note where no kwarg can: v5 and v0 ids are sticky
    (repeat_action_probability=0.25; envpool's default is 0, as v4's), NoFrameskip is
    frame_skip=1, v5 and Deterministic a fixed 4 (envpool's default; 3 for SpaceInvaders'
    Deterministic ids), plain v0/v4 a random 2 to 4 frames per step."""
    kwargs: dict[str, object] = {}
    if v5 or match["version"] == "0":
        kwargs["repeat_action_probability"] = 0.25
    variant = None if v5 else match["variant"]
    if variant == "NoFrameskip":
        kwargs["frame_skip"] = 1
    elif variant == "Deterministic" and match["game"] == "SpaceInvaders":
        kwargs["frame_skip"] = 3
    note = ""
    if not v5 and variant is None:
        note = " (that id skips a random 2 to 4 frames per step; envpool's frame_skip is fixed, 4 by default)"
    return kwargs, note


def unknown_task_hint(task_id: str, known) -> str | None:
    """The error message for an unknown ``task_id`` (``known``: the task ids there are) that a
    plugin family has or that is gymnasium's id of one of its tasks; None for any other id (the
    registry's own message, with close matches, applies).

    >>> print(unknown_task_hint("PongNoFrameskip-v4", {"Pong-v5"})[:110])
    unknown task id 'PongNoFrameskip-v4': that is gymnasium's (ale-py's) id; envpool's is 'Pong-v5': envpool.make(
    """
    if not isinstance(task_id, str) or task_id in known:
        return None
    for family in PLUGIN_FAMILIES:
        if task_id in family.task_ids:
            return f"unknown task id {task_id!r}: it is {_provided_by(family)}"
    match, v5 = _ALE_V5.match(task_id), True
    if match is None:
        match, v5 = _GYM_V04.match(task_id), False
    if match is None or match["game"] not in ATARI_GAMES:
        return None
    ours = f"{match['game']}-v5"
    kwargs, note = _ale_options(match, v5)
    call = ", ".join([repr(ours), *(f"{key}={value!r}" for key, value in kwargs.items())])
    text = (
        f"unknown task id {task_id!r}: that is gymnasium's (ale-py's) id; envpool's is {ours!r}: "
        f"envpool.make({call}) has that id's frame skip and sticky actions{note} (its observation is "
        "preprocessed: docs/atari.md)"
    )
    if match["ram"]:
        text += "; RAM observations (the -ram ids) are not offered: the observation is the screen"
    same_name = sorted(t for t in known if t.rsplit("-v", 1)[0] == match["game"] and t != ours)
    if same_name:
        text += f" (not to be confused with {', '.join(map(repr, same_name))})"
    if ours not in known:
        text += f"; {ours!r} is {_provided_by(ATARI)}"
    return text


def _provided_by(family: PluginFamily) -> str:
    return (
        f"an {family.name} task of the plugin package {family.distribution}, which is not installed (or did "
        f"not load: see the warnings of `import envpool`); install it with: {family.install}; see {family.docs}"
    )
