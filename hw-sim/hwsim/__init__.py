"""hw-sim/hwsim package."""
