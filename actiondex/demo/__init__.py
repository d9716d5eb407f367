"""The bundled demo web (fictional *.demo.test sites served on loopback) and `actiondex demo`."""
