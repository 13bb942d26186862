"""Example spec files of theorykit (installed as ``theorykit.examples``, package data)."""
