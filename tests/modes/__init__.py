"""Tests of the print, json and SDK modes."""
