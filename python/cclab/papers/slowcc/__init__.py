"""Bansal, Balakrishnan, Floyd & Shenker, SIGCOMM 2001: slowly-responsive congestion control."""
